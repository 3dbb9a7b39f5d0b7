// An MCP server command an agent's config could name: a FakeMcpServer over this process's stdio.
import { FakeMcpServer } from 'modeltape/fake-provider';

const fake = new FakeMcpServer({
  name: 'calendar',
  tools: {
    next_meeting: {
      description: 'The next meeting of a person',
      inputSchema: { type: 'object', properties: { person: { type: 'string' } }, required: ['person'], additionalProperties: false },
      outputSchema: {
        type: 'object',
        properties: { title: { type: 'string' }, startsAt: { type: 'string', format: 'date-time' } },
        required: ['title', 'startsAt'],
        additionalProperties: false,
      },
    },
  },
});
await fake.serveStdio();
