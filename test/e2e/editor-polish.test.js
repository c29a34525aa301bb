'use strict';
// Editor details a first-time user meets, checked in Chromium against a Node-RED with one deployed energy-api
// config node (no Dashboard 2): dropping a node, pickers, hints, dialog layout, icons and help.
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./harness');
const { startBareNodeRed, admin } = require('./bare-node-red');

const TAB = 'bb00000000000001';
const CONFIG = 'bb000000000000cf';
const DEVICE = 'D630000000002';
const NO_SWITCHES = 'B300000000001';

describe('e2e: editor polish', function () {
  this.timeout(120000);
  const types = h.packageNodeTypes();
  let nr;
  let browser;
  let page;

  const nodeOf = (type) => `bb00000000001${String(types.indexOf(type) + 1).padStart(3, '0')}`;

  async function openDialog(type) {
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), nodeOf(type));
    // Every dialog has a Name row (energy-store has no API row: it needs no energy-api config node).
    await page.waitForSelector('#node-input-name', { state: 'visible' });
    await page.waitForTimeout(300);
  }

  async function closeDialog() {
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-input-name', { state: 'detached' });
  }

  before(async function () {
    h.requireChromium(this);
    const clockOffsetMs = h.e2eClockOffsetMs();
    nr = await startBareNodeRed({ clockOffsetMs });
    const flows = [
      { id: TAB, type: 'tab', label: 'Polish' },
      { id: CONFIG, type: 'energy-api', name: 'sim', baseUrl: nr.simulator.baseUrl, tps: 5, tpd: 10000, timezone: '', configVersion: 1, credentials: { apiKey: nr.simulator.keys.full } },
      ...types.map((type, i) => ({
        id: nodeOf(type), type, z: TAB, name: '', api: CONFIG, deviceId: DEVICE, x: 200, y: 80 + i * 60, wires: type === 'energy-switch-control' ? [[], []] : [[]],
        ...{ 'energy-switch-control': { switchId: `${DEVICE}_S1`, timeout: 180 }, 'energy-query': { kind: 'short', query: 'range', output: 'entries' }, 'energy-device-status': { mode: 'device', offlineAfter: 900, interval: 0 }, 'energy-modbus-read': { query: 'latest', scale: 'units' }, 'energy-wifi-config': { deviceId: 'D6A0000000005', timeout: 300 }, 'energy-device-config': { timeout: 180 }, 'energy-load-control': { maxOff: 86400, minOn: 900, runFor: 5400, minBlock: 1800, window: 300, interval: 120 } }[type],
      })),
    ];
    await admin(nr.editorUrl, 'POST', 'flows', { flows });
    browser = await h.launchBrowser({ clockOffsetMs });
    page = browser.page;
    await h.openEditor(page, nr.editorUrl);
  });

  after(async () => {
    if (browser) await browser.close();
    if (nr) await nr.stop();
  });

  it('a node dropped from the palette takes the only config node and is invalid only for what the user must choose', async () => {
    for (const type of types) {
      const id = await h.dropFromPalette(page, type, { x: 600, y: 100 + types.indexOf(type) * 50 });
      const dropped = await page.evaluate((nodeId) => {
        const n = RED.nodes.node(nodeId);
        // What only the user can choose (a load-control node's device and switch, a cost node's tariff, the MQTT broker
        // when none is configured yet, Amber's site id, a forecast's location and size): the properties the editor finds invalid, the config node aside.
        const toChoose = (n.validationErrors || []).filter((k) => k !== 'api');
        return { type: n.type, api: n.api, valid: n.valid, toChoose, usesApi: 'api' in n._def.defaults };
      }, id);
      const { usesApi, ...seen } = dropped;
      // Never invalid for want of the config node: only for what the user must still choose.
      assert.deepStrictEqual(seen, { type, api: usesApi ? CONFIG : undefined, valid: dropped.toChoose.length === 0, toChoose: ({ 'energy-load-control': ['deviceId', 'switchId'], 'energy-cost': ['tariff'], 'energy-mqtt': ['broker'], 'energy-price': ['siteId'], 'energy-forecast': ['latitude', 'longitude', 'kwp'] })[type] || [] });
    }
    await h.screenshot(page, 'polish-dropped-nodes.png');
  });

  it('a load-control node saved before run targets is valid and opens with their defaults', async () => {
    const id = 'bb0000000000e001';
    const valid = await page.evaluate(({ id, TAB, CONFIG, DEVICE }) => {
      // As the first release saved it: configVersion 1, none of runFor, by, minBlock, maxPrice, cheapBelow, tariff.
      RED.view.importNodes([{ id, type: 'energy-load-control', z: TAB, name: 'saved before', api: CONFIG, deviceId: DEVICE, switchDeviceId: '', switchId: `${DEVICE}_S1`, mode: 'surplus', channels: '', loadChannel: '3', loadPower: 3600, onAbove: 1000, offBelow: 800, margin: 200, limit: 5000, window: 300, minOn: 900, minOff: 600, maxOff: 0, priority: 1, staleAfter: 600, failSafe: 'hold', dryRun: false, interval: 120, configVersion: 1, x: 700, y: 600, wires: [[], [], []] }]);
      const n = RED.nodes.node(id);
      RED.editor.validateNode(n);
      return { valid: n.valid, errors: n.validationErrors || [] };
    }, { id, TAB, CONFIG, DEVICE });
    assert.deepStrictEqual(valid, { valid: true, errors: [] });
    await page.evaluate((nodeId) => RED.editor.edit(RED.nodes.node(nodeId)), id);
    await page.waitForSelector('#node-input-name', { state: 'visible' });
    assert.deepStrictEqual(await page.evaluate(() => ({ runFor: $('#node-input-runFor').val(), minBlock: $('#node-input-minBlock').val(), actuator: $('#node-input-actuator').val(), switchShown: $('#node-input-switchId').closest('.form-row').is(':visible'), flowShown: $('#node-input-commandForm').closest('.form-row').is(':visible'), configVersion: $('#node-input-configVersion').val() })),
      { runFor: '0', minBlock: '1800', actuator: 'device', switchShown: true, flowShown: false, configVersion: '4' });
    await closeDialog();
    await page.evaluate((nodeId) => { RED.nodes.remove(nodeId); RED.view.redraw(true); }, id);
  });

  it('load control switched by the flow: the relay fields give way to the command words and the state source; no switch needed', async () => {
    await openDialog('energy-load-control');
    const shown = () => page.evaluate(() => Object.fromEntries(['switchDeviceId', 'switchId', 'commandForm', 'confirmBy', 'confirmAfter'].map((f) => [f, $(`#node-input-${f}`).closest('.form-row').is(':visible')])));
    assert.deepStrictEqual(await shown(), { switchDeviceId: true, switchId: true, commandForm: false, confirmBy: false, confirmAfter: false });
    await page.selectOption('#node-input-actuator', 'flow');
    assert.deepStrictEqual(await shown(), { switchDeviceId: false, switchId: false, commandForm: true, confirmBy: true, confirmAfter: false });
    assert.match(await page.evaluate(() => $('#energy-load-control-cost').text()), /\b720\b/, 'one energy read per 2 min, no switch reads');
    await page.selectOption('#node-input-confirmBy', 'time');
    assert.strictEqual((await shown()).confirmAfter, true);
    // A modulating load: its setpoint's fields appear with control power (durations with their units).
    const powerShown = () => page.evaluate(() => ['minCurrent', 'minPower', 'step', 'enableDelay', 'minInterval'].map((f) => $(`#node-input-${f}`).closest('.form-row').is(':visible')));
    assert.deepStrictEqual(await powerShown(), [false, false, false, false, false]);
    await page.selectOption('#node-input-control', 'power');
    assert.deepStrictEqual(await powerShown(), [true, true, true, true, true]);
    await page.selectOption('#node-input-control', 'onoff');
    await page.evaluate(() => $('#node-input-switchId').val('').trigger('change'));
    await h.screenshot(page, 'polish-load-control-flow.png');
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-input-name', { state: 'detached' });
    const saved = await page.evaluate((id) => { const n = RED.nodes.node(id); RED.editor.validateNode(n); return { actuator: n.actuator, confirmBy: n.confirmBy, switchId: n.switchId, valid: n.valid }; }, nodeOf('energy-load-control'));
    assert.deepStrictEqual(saved, { actuator: 'flow', confirmBy: 'time', switchId: '', valid: true });
  });

  it('the device picker lists every device even when a device is set', async () => {
    await openDialog('energy-query');
    assert.strictEqual(await page.inputValue('#node-input-deviceId'), DEVICE);
    const button = page.locator('#node-input-deviceId ~ .energy-api-choices');
    await page.waitForFunction(() => !$('#node-input-deviceId ~ .energy-api-choices').prop('disabled'), null);
    const listed = await page.$$eval('#node-input-deviceId-options option', (els) => els.length);
    await button.click();
    const items = page.locator('.red-ui-popover-panel:visible .red-ui-menu li');
    await items.first().waitFor({ state: 'visible' });
    assert.ok(listed >= 7, `${listed} devices`);
    assert.strictEqual(await items.count(), listed, 'every device is offered, not only the one matching the value');
    await h.screenshot(page, 'polish-device-choices.png');
    await items.first().click();
    assert.notStrictEqual(await page.inputValue('#node-input-deviceId'), DEVICE, 'picking a choice sets the device');
    await closeDialog();
  });

  it('a device without switches says so in the switch picker', async () => {
    await openDialog('energy-switch-control');
    await page.fill('#node-input-deviceId', NO_SWITCHES);
    await page.dispatchEvent('#node-input-deviceId', 'change');
    const hint = page.locator('#energy-switch-control-switch-hint');
    await page.waitForFunction(() => /no switches/.test($('#energy-switch-control-switch-hint').text()), null);
    assert.ok(await hint.isVisible());
    assert.match(await hint.innerText(), new RegExp(NO_SWITCHES));
    await h.screenshot(page, 'polish-no-switches.png');
    await closeDialog();
  });

  it('"0 = no polling" is stated next to the poll interval', async () => {
    await openDialog('energy-device-status');
    const row = await page.evaluate(() => $('#node-input-interval').closest('.form-row').text());
    assert.match(row, /0 = no polling/);
    await closeDialog();
  });

  it('a Solcast forecast states its daily limit, and the requests a day and the shortest gap follow it', async () => {
    await openDialog('energy-forecast');
    await page.selectOption('#node-input-source', 'solcast');
    const limitRow = await page.evaluate(() => $('#node-input-dailyLimit').closest('.form-row').text().replace(/\s+/g, ' ').trim());
    assert.match(limitRow, /Daily limit .*10 on the hobbyist plan/);
    // A node saved before the daily limit: the field is empty and shows 10, and 10 is what the node keeps to.
    assert.equal(await page.getAttribute('#node-input-dailyLimit', 'placeholder'), '10');
    const hint = () => page.evaluate(() => $('#energy-forecast-cost').text());
    assert.match(await hint(), /About 8 requests a day to solcast .*at least every 150 minutes, its limit is 10\/day/);
    await page.fill('#node-input-dailyLimit', '50');
    await page.dispatchEvent('#node-input-dailyLimit', 'change');
    assert.match(await hint(), /About 8 requests a day .*at least every 30 minutes, its limit is 50\/day/);
    await page.fill('#node-input-interval', '30');
    await page.dispatchEvent('#node-input-interval', 'change');
    assert.match(await hint(), /About 48 requests a day/);
    await page.selectOption('#node-input-source', 'forecast.solar');
    assert.equal(await page.isVisible('#node-input-dailyLimit'), false, 'Forecast.Solar has no key and no daily limit');
    await closeDialog();
  });

  it('durations show with a unit and are saved in seconds', async () => {
    await openDialog('energy-load-control');
    const shown = () => page.evaluate(() => ['maxOff', 'minOn', 'runFor', 'interval'].map((f) => `${$(`#energy-duration-${f}`).val()} ${$(`#energy-duration-${f}-unit option:selected`).text()}`));
    assert.deepStrictEqual(await shown(), ['24 h', '15 min', '90 min', '2 min']);
    assert.strictEqual(await page.evaluate(() => $('#node-input-maxOff').is(':visible')), false, 'the seconds are not shown');
    await page.fill('#energy-duration-maxOff', '2');
    await page.selectOption('#energy-duration-maxOff-unit', { label: 'min' });
    await page.fill('#energy-duration-runFor', '1.5');
    await page.selectOption('#energy-duration-runFor-unit', { label: 'h' });
    await h.screenshot(page, 'polish-durations.png');
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-input-name', { state: 'detached' });
    const saved = await page.evaluate((id) => { const n = RED.nodes.node(id); return { maxOff: Number(n.maxOff), runFor: Number(n.runFor), minOn: Number(n.minOn) }; }, nodeOf('energy-load-control'));
    assert.deepStrictEqual(saved, { maxOff: 120, runFor: 5400, minOn: 900 });
    await openDialog('energy-device-status');
    assert.deepStrictEqual(await page.evaluate(() => [$('#energy-duration-offlineAfter').val(), $('#energy-duration-offlineAfter-unit option:selected').text()]), ['15', 'min']);
    assert.match(await page.evaluate(() => $('#energy-duration-interval').attr('placeholder')), /0 = no polling/);
    await closeDialog();
  });

  it('every dialog has the Name row first and no select whose choices are cut off', async () => {
    for (const type of types) {
      await openDialog(type);
      const firstRow = await page.evaluate(() => $('#dialog-form .form-row:visible').first().find('input:not([type=hidden]), select').attr('id'));
      assert.strictEqual(firstRow, 'node-input-name', `${type}: the first row`);
      const cut = await page.evaluate(() => {
        const ctx = document.createElement('canvas').getContext('2d');
        const found = [];
        $('#dialog-form select:visible').each(function () {
          const style = getComputedStyle(this);
          ctx.font = `${style.fontSize} ${style.fontFamily}`;
          const room = this.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16; // the arrow
          for (const option of this.options) {
            if (ctx.measureText(option.text).width > room) found.push(`${this.id}: "${option.text}"`);
          }
        });
        return found;
      });
      assert.deepStrictEqual(cut, [], `${type}: select choices wider than their select`);
      await h.screenshot(page, `polish-dialog-${type}.png`);
      await closeDialog();
    }
  });

  it('every node type has its own icon', async () => {
    const icons = types.map((type) => fs.readFileSync(path.join(h.ROOT, 'src', 'nodes', type, 'icons', `${type}.svg`), 'utf8'));
    assert.strictEqual(new Set(icons).size, types.length);
    const drawn = await page.$$eval('#red-ui-palette-container-energy .red-ui-palette-icon', (els) => els.map((e) => getComputedStyle(e).backgroundImage));
    assert.strictEqual(new Set(drawn).size, types.length, drawn.join(' | '));
  });

  it('help code samples wrap instead of running out of the help panel', async () => {
    await page.evaluate((id) => { RED.view.select({ nodes: [RED.nodes.node(id)] }); RED.sidebar.help.show('energy-device-config'); }, nodeOf('energy-device-config'));
    await page.waitForSelector('.red-ui-help pre', { state: 'visible' });
    const overflow = await page.$$eval('.red-ui-help pre', (els) => els.map((e) => ({ ws: getComputedStyle(e).whiteSpace, wide: e.scrollWidth > e.clientWidth + 1 })));
    assert.ok(overflow.length > 0);
    for (const pre of overflow) {
      assert.strictEqual(pre.ws, 'pre-wrap');
      assert.strictEqual(pre.wide, false);
    }
    await h.screenshot(page, 'polish-help.png');
  });

  it('the config dialog states what its nodes cost a day', async () => {
    await page.evaluate((id) => RED.editor.editConfig('', 'energy-api', id), CONFIG);
    await page.waitForFunction(() => /requests a day/.test($('#energy-api-budget-state').text()), null);
    assert.match(await page.locator('#energy-api-budget-state').innerText(), /about [\d,]+ requests a day/);
    await h.screenshot(page, 'polish-config-budget.png');
    await page.click('#node-config-dialog-cancel');
  });

  it("opens again without a page error when the editor's own files come late, as on a loaded host (keymap.json 2 s late)", async () => {
    const late = /\/red\/keymap\.json/;
    await page.route(late, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await route.continue();
    });
    try {
      await h.openEditor(page, nr.editorUrl);
    } finally {
      await page.unroute(late);
    }
    // The page errors of this load are read by the next test.
  });

  it('logged no page error and reached no outside host', () => {
    assert.deepStrictEqual(browser.consoleErrors.filter((e) => !/Failed to load resource/.test(e)), []);
    assert.deepStrictEqual(browser.outside, []);
  });
});
