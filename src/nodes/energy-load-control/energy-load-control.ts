import { ConfigError, LoadError, MsgError } from '../../api/index.js';
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { nodeClock } from '../shared/clock.js';
import { errorDetails, toError } from '../shared/errors.js';
import { FlowNodeRuntime, isAborted, type FlowNodeDef } from '../shared/flow-node.js';
import { FlowActuator, relayReading } from '../../domain/site/actuator.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';
import { migrations } from './migrations.js';
import { parseCommand, type LoadCommand } from './command.js';
import { persistentStore } from '../shared/context-store.js';
import { forgetMemory, loadMemory, saveMemory } from './persist.js';
import { evaluationMsg, outcomeMsg, statusOf } from './report.js';
import type { LoadIds, StatusWords } from './words.js';
import { PlanOutput, planStatusParts } from './plan-report.js';
import { LoadSun } from './sun.js';
import { setpointFields, setpointMsg, setpointStatus } from './setpoint.js';
import { LoadPricing } from './pricing.js';
import { switchLoad, type SwitchContext } from './switching.js';
import { parseDef, resolveSettings, type LoadControlDef, type ParsedDef } from './settings.js';
import { siteGroup, type SiteMember } from '../../domain/site/site.js';
import { shareLoadControl, type RemoteHandle } from './remote.js';
import type { LoadMemory, LoadSettings, SwitchReading } from '../../domain/site/types.js';

interface LoadControlMsg extends NodeMessageInFlow {
  duration?: unknown;
  prices?: unknown;
  forecast?: unknown;
  forecastStale?: unknown;
  currency?: unknown;
}

export = function (RED: NodeAPI): void {
  function EnergyLoadControlNode(this: Node, def: LoadControlDef & FlowNodeDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)() }));
    const node = this;
    const rt = new FlowNodeRuntime(RED, node, def);
    const clock = nodeClock(RED);
    const store = persistentStore(RED);
    let parsed: ParsedDef;
    try {
      parsed = parseDef(def);
    } catch (err) {
      rt.error(err);
      node.error(toError(err).message);
      rt.onInput(async () => { throw err; });
      return;
    }
    node.on('close', (removed: boolean, done: () => void) => {
      if (removed) {
        forgetMemory(node);
        LoadSun.forget(node);
      }
      done();
    });
    const ids: LoadIds = { topic: def.name || parsed.switchId || parsed.deviceId, deviceId: parsed.deviceId, switchDeviceId: parsed.switchDeviceId, switchId: parsed.switchId, mode: parsed.settings.mode };
    let memory: LoadMemory = {};
    const target = parsed.settings.target;
    const energyTarget = parsed.settings.energyTarget;
    const pricing = target || energyTarget ? new LoadPricing(RED, node, store, parsed.tariffId) : undefined;
    const sun = target || energyTarget ? new LoadSun(node, store) : undefined;
    /** The currency of the last msg.prices (energy-price says AUD for Amber), where no tariff names one. */
    let pricesCurrency: string | undefined;
    const currency = (): string | undefined => pricing?.currency ?? pricesCurrency;
    const ready = Promise.all([loadMemory(node, store).then((m) => { memory = { ...m, ...memory }; }), pricing?.ready, sun?.ready]);
    const planOutput = new PlanOutput();
    let settings: LoadSettings | undefined;
    let lastProblem: string | undefined;
    /** The last msg.prices was refused: the plan goes on with the list before it, and the status says so until a good one comes. */
    let pricesRefused = false;
    /** Node-clock ms of the last failure, so the evaluation of the same cycle leaves its red status alone. */
    let problemAt: number | undefined;
    const words: StatusWords = (key, values) => RED._(`energy-load-control.status.${key}`, values);
    const send = (out: Array<NodeMessage | null>): void => { if (!rt.closed) node.send(out); };

    function problem(err: unknown): void {
      if (rt.closed || isAborted(err)) return;
      rt.error(err);
      const text = toError(err).message;
      // Warned once per distinct problem, not at every evaluation while it lasts.
      if (text !== lastProblem) node.warn(text);
      lastProblem = text;
      problemAt = clock();
    }

    function remember(next: LoadMemory): void {
      if (JSON.stringify(next) !== JSON.stringify(memory)) saveMemory(node, store, next);
      memory = next;
    }

    /** A load switched by the flow: its state comes from the flow, the draw or the time since the command. */
    const actuator = parsed.flow ? new FlowActuator(parsed.flow.confirmBy, parsed.flow.confirmAfterS) : undefined;
    /** The flow's actuator did not confirm this command in time: the status stays red until its state is known again. */
    let unconfirmed: string | undefined;
    const switching: SwitchContext = { rt, parsed, ids, memory: () => memory, remember, send, problem, actuator };

    const member: SiteMember = {
      id: node.id,
      switchDeviceId: actuator ? undefined : parsed.switchDeviceId,
      intervalS: parsed.intervalS,
      windowS: parsed.settings.windowS,
      needsSwitchRead: () => !actuator && (memory.state === undefined || memory.pending !== undefined),
      pendingSince: () => memory.pending?.at,
      needsHistory: () => (target !== undefined || energyTarget !== undefined) && parsed.settings.mode === 'surplus',
      input(measuring, switchDevice, site) {
        try {
          settings ??= measuring ? resolveSettings(parsed, measuring) : undefined;
          if (!settings) return undefined;
          let reading: SwitchReading | undefined;
          // A modulating load's setpoint is taken as sent; its draw on loadChannel says what it really takes.
          if (actuator && !parsed.settings.power) reading = actuator.reading({ memory, settings, entries: site.entries, now: clock() });
          else if (switchDevice) reading = relayReading(switchDevice, parsed.switchId);
          const problemWithTariff = pricing?.tariffProblem();
          if (problemWithTariff) problem(new ConfigError(problemWithTariff));
          return { id: node.id, settings, memory, reading, faulty: actuator?.faulty, pricing: pricing?.forMember(measuring, rt.config), sun: sun?.input };
        } catch (err) {
          problem(err);
          return undefined;
        }
      },
      async apply(evaluation, device) {
        if (rt.closed || !settings) return undefined;
        // The override belongs to the msgs: one that arrived during this evaluation wins over the evaluation's copy.
        const override = memory.override?.until !== undefined && memory.override.until <= evaluation.at ? undefined : memory.override;
        remember({ ...evaluation.memory, override });
        for (const outcome of evaluation.outcomes) {
          // A flow's output 1 switches what it is wired to: it carries the commands alone.
          if (!actuator) send([outcomeMsg(ids, evaluation, outcome), null]);
          else if (outcome.kind === 'timedOut') {
            unconfirmed = outcome.target;
            const err = new LoadError(`the load did not confirm "${outcome.target}" within ${outcome.afterS} s: check the actuator and the state it sends back (msg.topic "state")`);
            problem(err);
            // To a Catch node, with the command that went unconfirmed.
            node.error(err.message, { ...ids, payload: outcome.target, outcome: 'timedOut', error: { message: err.message }, apiError: errorDetails(err) } as NodeMessage);
          }
        }
        if (memory.state !== undefined) unconfirmed = undefined;
        const patched = evaluation.switchTo ? await switchLoad(switching, evaluation, device, settings) : undefined;
        // A flow's output 1 drives what it is wired to: a dry run sends nothing there.
        if (evaluation.setpoint?.changed && !settings.dryRun) send([setpointMsg(ids, evaluation), null]);
        send([null, { ...evaluationMsg(ids, evaluation, memory), ...setpointFields(evaluation) }]);
        const plan = planOutput.next(ids, evaluation, currency());
        if (plan) send([null, null, plan]);
        // A read or the PATCH failed in this cycle: its red status stays until an evaluation goes through.
        if (problemAt !== undefined && problemAt >= evaluation.at) return patched;
        lastProblem = undefined;
        let status = statusOf(evaluation, memory, settings, words);
        if (evaluation.target) status = { ...status, text: [status.text, ...planStatusParts(evaluation.target, currency(), words)].join(' · ') };
        if (evaluation.setpoint) status = setpointStatus(status, evaluation);
        else if (actuator && parsed.flow) {
          const how = words(`confirmBy_${parsed.flow.confirmBy}`);
          status = unconfirmed ? { fill: 'red', shape: 'ring', text: `${status.text} · ${words('unconfirmedShort', { state: unconfirmed })}` } : { ...status, text: `${status.text} · ${how}` };
        }
        rt.status(pricesRefused ? { ...status, fill: status.fill === 'red' ? 'red' : 'yellow', text: `${status.text} · ${words('pricesRefused')}` } : status);
        remote?.evaluated(evaluation);
        return patched;
      },
      readFailed: problem,
    };

    let group: ReturnType<typeof siteGroup> | undefined;
    let remote: RemoteHandle | undefined;
    try {
      group = siteGroup(rt.client(), parsed.deviceId, clock);
      const joined = group;
      void ready.then(() => { if (!rt.closed) joined.join(member); });
      rt.onClose(() => joined.leave(member));
      // energy-mqtt shows the override and reason, and sets the override, through the key's registry.
      remote = shareLoadControl(rt.client(), { nodeId: node.id, name: def.name ?? '', ...ids }, () => memory, run);
      rt.onClose(() => remote?.remove());
    } catch {
      // The config node is missing or unusable: FlowNodeRuntime already says so in the status.
    }

    /** A command from a msg or from another node (energy-mqtt): the override changes, then the site evaluates at once. */
    async function run(command: LoadCommand): Promise<void> {
      await ready;
      if (command.kind === 'override') remember({ ...memory, override: command.override });
      if (command.kind === 'auto') {
        const { override: _dropped, ...rest } = memory;
        remember(rest);
      }
      if (command.kind !== 'evaluate') remote?.changed();
      if (group && !rt.closed) await group.evaluate();
    }

    /** The load's state as its actuator reports it: confirms a command, or is adopted as a change made there. */
    async function feedback(value: unknown): Promise<void> {
      if (parsed.settings.power) throw new MsgError('msg.topic "state" is for a load switched on and off: a modulating load (control power) is followed by its draw on loadChannel');
      if (!actuator || parsed.flow?.confirmBy !== 'feedback') {
        throw new MsgError(actuator ? `msg.topic "state" is read with confirmBy feedback; this node confirms by ${parsed.flow?.confirmBy}` : 'msg.topic "state" is for a load switched by the flow (actuator flow): this node reads its relay from the device');
      }
      await ready;
      try {
        actuator.report(value);
      } catch (err) {
        // The state is unknown now: the fail-safe applies at once, and the msg ends with the error.
        await run({ kind: 'evaluate' });
        throw err;
      }
      return run({ kind: 'evaluate' });
    }

    rt.onInput<LoadControlMsg>(async ({ msg }) => {
      if (msg.topic === 'state') return feedback(msg.payload);
      if (msg.prices === undefined && msg.forecast === undefined) return run(parseCommand(msg.payload, msg.duration, clock()));
      // A new price list or forecast (energy-price, energy-forecast, or any flow) re-plans now; its msg.payload is not a command.
      await ready;
      if (msg.forecast !== undefined) {
        LoadSun.accept(sun, msg.forecast, msg.forecastStale, Math.floor(clock() / 1000));
        if (msg.prices === undefined) return run({ kind: 'evaluate' });
      }
      if (typeof msg.currency === 'string' && /^[A-Z]{3}$/.test(msg.currency)) pricesCurrency = msg.currency;
      try {
        LoadPricing.accept(pricing, msg.prices, Math.floor(clock() / 1000), rt.config?.timezone);
      } catch (err) {
        pricesRefused = pricing !== undefined;
        throw err;
      }
      pricesRefused = false;
      return run({ kind: 'evaluate' });
    });
  }

  RED.nodes.registerType('energy-load-control', EnergyLoadControlNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1]);
};
