/**
 * drift-report/: what a run's replay misses add up to, as text for the terminal and as one
 * self-contained HTML page (`modeltape drift --html`). Built by replay/ when a session closes
 * and by the CLI from the sessions of a run.
 */
export { buildDriftReport, formatDriftReport, type DriftReport, type DriftItem, type DriftEndpoint, type DriftRequest } from './drift-report.js';
export { renderDriftHtml } from './render-drift-html.js';
export { DRIFT_HTML_STYLE } from './drift-html-style.js';
