/** Milliseconds since the epoch, as the package's nodes and their client read the time. */
export type Now = () => number;
