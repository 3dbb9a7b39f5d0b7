/** The version of modeltape, written into every tape header. A test keeps it equal to package.json. */
export const MODELTAPE_VERSION = '0.1.0';

/** `modeltape@<version>`, as tape headers name their writer. */
export const WRITTEN_BY = `modeltape@${MODELTAPE_VERSION}`;
