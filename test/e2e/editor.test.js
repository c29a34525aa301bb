'use strict';
// The editor in a real browser: palette, config dialog and pickers, against what `npm start` starts.
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./harness');

describe('e2e: editor', function () {
  this.timeout(90000);
  let demo;
  let browser;
  let page;

  before(async function () {
    h.requireChromium(this);
    demo = await h.startDemo();
    browser = await h.launchBrowser({ clockOffsetMs: demo.clockOffsetMs });
    page = browser.page;
    await h.openEditor(page, demo.editorUrl);
  });

  after(async () => {
    if (browser) await browser.close();
    if (demo) await demo.stop();
  });

  it('palette search finds every node of the package', async () => {
    const search = page.locator('#red-ui-palette-search input');
    for (const type of h.packageNodeTypes()) {
      await search.fill('');
      await search.pressSequentially(type.replace(/^energy-/, ''), { delay: 20 });
      const node = page.locator(`#red-ui-palette-container-energy .red-ui-palette-node[data-palette-type="${type}"]`);
      await node.waitFor({ state: 'visible' });
    }
    await search.fill('');
    await search.press('Escape');
    const shown = await page.$$eval('#red-ui-palette-container-energy .red-ui-palette-node', (els) => els.map((e) => e.getAttribute('data-palette-type')));
    assert.deepStrictEqual(shown.sort(), h.packageNodeTypes().sort());
  });

  it('the config dialog takes the key as a password and the key never comes back from the runtime', async () => {
    const key = demo.simulator.keys.full;
    const nodeId = await h.dropFromPalette(page, 'energy-device-status', { x: 400, y: 500 });
    await page.dblclick(`[id="${nodeId}"]`);
    await page.waitForSelector('#node-input-api', { state: 'attached' });
    await page.click('#node-input-btn-api-add');
    const keyInput = page.locator('#node-config-input-apiKey');
    await keyInput.waitFor({ state: 'visible' });
    assert.strictEqual(await keyInput.getAttribute('type'), 'password');
    await page.fill('#node-config-input-name', 'E2E account');
    await page.fill('#node-config-input-baseUrl', demo.simulator.baseUrl);
    await keyInput.fill(key);
    await page.click('#node-config-dialog-ok');
    await page.click('#node-dialog-ok');
    await h.deploy(page);

    const { flows } = await h.adminGet(demo, 'flows');
    const config = flows.find((n) => n.type === 'energy-api' && n.name === 'E2E account');
    assert.ok(config, 'the new config node is deployed');
    assert.strictEqual(config.credentials, undefined);
    assert.ok(!JSON.stringify(flows).includes(key), 'the key is not in GET /flows');
    const credFile = path.join(demo.userDir, 'flows_cred.json');
    assert.ok(fs.existsSync(credFile), 'credentials were saved');
    assert.ok(!fs.readFileSync(credFile, 'utf8').includes(key), 'flows_cred.json is encrypted');
    const editorCreds = await h.adminGet(demo, `credentials/energy-api/${config.id}`);
    assert.strictEqual(editorCreds.has_apiKey, true, 'the editor learns that a key is set');
    assert.ok(Object.entries(editorCreds).every(([k, v]) => k.startsWith('has_') && typeof v === 'boolean'), `the editor learns only which credentials are set: ${JSON.stringify(editorCreds)}`);

    assert.strictEqual(await page.evaluate((id) => RED.nodes.node(id).api, nodeId), config.id);
    browser.deviceStatusId = nodeId;
    browser.configId = config.id;
  });

  it('after deploy the device picker lists the devices with labels and models', async () => {
    const devices = await h.simulatorDevices(demo);
    assert.ok(devices.length >= 5);
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), browser.deviceStatusId);
    await page.waitForSelector('#node-input-deviceId', { state: 'visible' });
    assert.strictEqual(await page.inputValue('#node-input-api'), browser.configId);
    await page.waitForFunction((n) => $('#node-input-deviceId-options option').length === n, devices.length);
    const options = await page.$$eval('#node-input-deviceId-options option', (els) => els.map((o) => ({ value: o.value, text: o.textContent })));
    for (const d of devices) {
      const option = options.find((o) => o.value === d.id);
      assert.ok(option, `${d.id} is listed`);
      assert.ok(option.text.includes(d.model), `${d.id} shows its model ${d.model}: ${option.text}`);
      if (d.label) assert.ok(option.text.includes(d.label), `${d.id} shows its label ${d.label}: ${option.text}`);
    }
    await h.screenshot(page, 'editor-device-picker.png');
    await page.click('#node-dialog-cancel');
  });

  it('a switch picker lists the switches of the chosen device', async function () {
    const device = (await h.simulatorDevices(demo)).find((d) => d.switches.length > 1 && d.label && !d.uninitialised);
    const nodeId = await h.dropFromPalette(page, 'energy-switch-control', { x: 400, y: 600 });
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), nodeId);
    await page.waitForSelector('#node-input-switchId', { state: 'visible' });
    await page.selectOption('#node-input-api', browser.configId);
    await page.fill('#node-input-deviceId', device.id);
    await page.dispatchEvent('#node-input-deviceId', 'change');
    await page.waitForFunction((n) => $('#node-input-switchId-options option').length === n, device.switches.length);
    const options = await page.$$eval('#node-input-switchId-options option', (els) => els.map((o) => ({ value: o.value, text: o.textContent })));
    for (const s of device.switches) {
      const option = options.find((o) => o.value === s.id);
      assert.ok(option, `${s.id} is listed`);
      if (s.label) assert.ok(option.text.includes(s.label), `${s.id} shows its label: ${option.text}`);
    }
    await h.screenshot(page, 'editor-switch-picker.png');
    await page.click('#node-dialog-cancel');
  });

  it('a Redis password typed into the shared limiter address moves into its credential on Done', async () => {
    const password = 'redis-pw-5be2d0';
    // The previous test's dialog slides out first (its tray is still in the page while it does).
    await page.waitForSelector('#node-input-switchId', { state: 'detached' });
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), browser.deviceStatusId);
    await page.waitForFunction(() => $('#node-input-btn-api-edit:visible').length === 1);
    await page.click('#node-input-btn-api-edit');
    const url = page.locator('#node-config-input-redisUrl');
    await url.waitFor({ state: 'visible' });
    await url.fill(`redis://fleet:${password}@127.0.0.1:6399/2`);
    assert.strictEqual(await page.evaluate((v) => RED.nodes.getType('energy-api').defaults.redisUrl.validate(v), await url.inputValue()), false, 'an address with a password is not valid as it stands');
    await page.click('#node-config-dialog-ok');
    const saved = await page.evaluate((id) => ({ redisUrl: RED.nodes.node(id).redisUrl, password: (RED.nodes.node(id).credentials || {}).redisPassword }), browser.configId);
    assert.deepStrictEqual(saved, { redisUrl: 'redis://fleet@127.0.0.1:6399/2', password });
    const exported = await page.evaluate(() => JSON.stringify(RED.nodes.createCompleteNodeSet({ credentials: false })));
    assert.ok(!exported.includes(password), 'the export does not carry it');
    await page.click('#node-dialog-cancel');
  });

  it('the editor reached no outside host and logged no page error', async () => {
    await h.screenshot(page, 'editor.png');
    assert.deepStrictEqual(browser.outside, []);
    assert.deepStrictEqual(browser.consoleErrors.filter((e) => !/Failed to load resource/.test(e)), []);
  });
});
