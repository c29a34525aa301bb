/** The timezone a node works in: the one given (node or msg), else the device's own, else the config node's. */
export function resolveTimezone(given: string | undefined, device: { timezone?: string } | undefined, config: { timezone?: string }): string | undefined {
  return given || device?.timezone || config.timezone || undefined;
}
