// eslint-disable-next-line @typescript-eslint/no-require-imports
const packageName: string = require('../../../package.json').name;

/** Message keys shared by every node live in the config node's catalogue (locales/en-US/energy-api.json, "common"). */
export function commonKey(key: string): string {
  return `${packageName}/energy-api:common.${key}`;
}
