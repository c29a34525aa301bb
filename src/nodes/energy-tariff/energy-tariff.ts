import type { Node, NodeAPI, NodeDef } from 'node-red';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { buildTariff, type Tariff, type TariffDef } from './tariff.js';

/** What energy-cost sees of its tariff config node. */
export interface EnergyTariffConfigNode extends Node {
  tariff?: Tariff;
  /** Why the tariff is unusable, in the user's words. */
  problem?: string;
}

export = function (RED: NodeAPI): void {
  function EnergyTariffNode(this: EnergyTariffConfigNode, def: NodeDef & TariffDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    try {
      this.tariff = buildTariff(def);
    } catch (err) {
      // Not thrown: a config node that throws stops the deploy; the nodes using it say why instead.
      this.problem = err instanceof Error ? err.message : String(err);
      this.error(RED._('energy-tariff.errors.unusable', { reason: this.problem }));
    }
  }

  RED.nodes.registerType('energy-tariff', EnergyTariffNode);
};
