// The second thread of a store's first search (first-build.ts): builds and writes the search
// indexes of the folders of the files it is given, posting how many files it has done.
// Depends on search.ts buildIndexes.

import { parentPort, workerData } from 'node:worker_threads';
import { buildIndexes } from './search.js';

const { files, query } = workerData as { files: string[]; query: string };
await buildIndexes(files, query, (done) => parentPort?.postMessage({ done }));
