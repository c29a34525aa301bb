import type { NodeAPI, NodeDef } from 'node-red';
import type { EnergyTariffConfigNode } from '../shared/config-types.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { buildTariff, type TariffDef } from '../../domain/pricing/tariff.js';


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
