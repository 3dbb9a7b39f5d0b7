// The barrel the CLI imports tape mutation through.
export { MUTATION_OPERATORS, type Mutation, type MutationOperator } from './mutation.js';
export { mutantProblems, mutationsOf } from './operators/index.js';
export { chooseMutants, type ChooseOptions, type Mutant, type MutantChoice, type TapeToMutate } from './choose-mutants.js';
export {
  MUTANT_OUTCOMES,
  buildMutationReport,
  diffLines,
  mutantListDigest,
  formatMutationReport,
  renderMutationHtml,
  resultOf,
  type MutantOutcome,
  type MutantResult,
  type MutationReport,
  type MutationShard,
} from './mutation-report.js';
export { lineReaders, narrowCommand, type LineReaders, type MutantRun } from './test-selection.js';
export { mergeMutationReports, mutantsOfShard, readShardReport, ShardMergeError, type ShardChoice, type ShardReport } from './mutant-shards.js';
export { mutateSuite, SuiteFailsOnTapesError, type MutateSuiteOptions } from './mutate-suite.js';
