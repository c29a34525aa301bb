'use strict';
// A key with a fleet (the simulator's 300 extra sites: 307 devices) in a real browser: the editor's device picker
// searches instead of listing 307 lines, the config node's "Per day" row stays one readable line, and the
// dashboard's site picker (a Dashboard 2 dropdown with "Allow Search") narrows the sites as one types.
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const { start } = require('../../scripts/start');
const { DEMO_CONFIG_ID } = require('../../scripts/demo-flows');

const example = JSON.parse(fs.readFileSync(path.join(h.ROOT, 'examples', 'Energy dashboard.json'), 'utf8'));
const byName = (type, name) => example.find((n) => n.type === type && n.name === name);
const SITE_PICKER = `#nrdb-ui-widget-${byName('ui-dropdown', 'site picker').id}`;
const NOW_TILES = `#nrdb-ui-widget-${byName('ui-template', 'now tiles').id}`;
const EXTRA_DEVICES = 300;
/** What the editor lists at once (resources/energy-editor.js). */
const SHOWN = 50;

describe('e2e: a fleet of 307 devices on one key', function () {
  this.timeout(180000);
  let demo;
  let browser;
  let page;
  let devices;
  let all;
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-e2e-fleet-'));

  before(async function () {
    h.requireChromium(this);
    const clockOffsetMs = h.e2eClockOffsetMs();
    demo = await start({ port: 0, simPort: 0, userDir, log: () => {}, apiUrl: '', extraDevices: EXTRA_DEVICES, clockOffsetMs });
    all = await h.simulatorDevices(demo);
    devices = all.filter((d) => !d.uninitialised);
    browser = await h.launchBrowser({ clockOffsetMs });
    page = browser.page;
    await h.openEditor(page, demo.editorUrl);
  });

  after(async () => {
    if (browser) await browser.close();
    if (demo) await demo.stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  it('the device picker searches ids, labels and models, lists the first 50 and says how many more', async () => {
    assert.ok(devices.length >= 300, `${devices.length} devices`);
    const nodeId = await page.evaluate(() => RED.nodes.filterNodes({ type: 'energy-query' }).find((n) => !n.d).id);
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), nodeId);
    await page.waitForSelector('#node-input-deviceId', { state: 'visible' });
    await page.waitForFunction(() => !$('#node-input-deviceId ~ .energy-api-choices').prop('disabled'), null);
    await page.click('#node-input-deviceId ~ .energy-api-choices');
    const panel = '.red-ui-popover-panel:visible';
    const items = page.locator(`${panel} .red-ui-menu li`);
    await items.first().waitFor({ state: 'visible' });
    assert.strictEqual(await items.count(), SHOWN, 'the first 50, not 307 lines');
    assert.match(await page.locator(`${panel} .energy-api-choices-note`).innerText(), new RegExp(`first ${SHOWN} of ${all.length}`));
    await h.screenshot(page, 'fleet-device-picker.png');

    // Every word typed must match: a business label and its model.
    const business = devices.find((d) => /café|bakery|clinic|pharmacy|brewery/i.test(d.label));
    const word = business.label.split(' ')[0];
    const expected = devices.filter((d) => `${d.id} ${d.label} ${d.model}`.toLowerCase().includes(word.toLowerCase()) && `${d.id} ${d.label} ${d.model}`.includes(business.model));
    await page.locator(`${panel} input.energy-api-choices-search`).pressSequentially(`${word.toLowerCase()} ${business.model}`, { delay: 15 });
    await page.waitForFunction((n) => $('.red-ui-popover-panel:visible .red-ui-menu li').length === n, Math.min(SHOWN, expected.length));
    const listed = await items.allInnerTexts();
    assert.ok(listed.every((text) => text.toLowerCase().includes(word.toLowerCase()) && text.includes(business.model)), listed.join(' | '));
    await h.screenshot(page, 'fleet-device-picker-search.png');

    // An id: one match, and Enter takes it.
    const search = page.locator(`${panel} input.energy-api-choices-search`);
    await search.fill('');
    const target = devices[devices.length - 1];
    await search.pressSequentially(target.id, { delay: 10 });
    await page.waitForFunction(() => $('.red-ui-popover-panel:visible .red-ui-menu li').length === 1, null);
    await search.press('Enter');
    assert.strictEqual(await page.inputValue('#node-input-deviceId'), target.id);

    // Typed faster than the search's 80 ms delay and Enter at once: Enter takes what is typed, not the first line
    // the delayed search last listed, and the search's delayed change finds the closed panel gone without an error.
    const other = devices[Math.floor(devices.length / 2)];
    await page.click('#node-input-deviceId ~ .energy-api-choices');
    await search.waitFor({ state: 'visible' });
    await search.pressSequentially(other.id);
    await search.press('Enter');
    assert.strictEqual(await page.inputValue('#node-input-deviceId'), other.id);
    await page.waitForTimeout(300);
    assert.deepStrictEqual(browser.consoleErrors.filter((e) => /searchBox/.test(e)), []);
    await page.click('#node-dialog-cancel');
  });

  it('the config node states what its nodes cost a day in one readable line', async () => {
    await page.evaluate((id) => RED.editor.editConfig('', 'energy-api', id), DEMO_CONFIG_ID);
    await page.waitForFunction(() => /requests a day/.test($('#energy-api-budget-state').text()), null);
    const text = await page.locator('#energy-api-budget-state').innerText();
    // The key's daily limit as the simulator sizes it for 307 devices, grouped by thousands.
    assert.match(text, /of 1,326,240\)/, text);
    assert.match(text, /Costliest: .+ \(\d[\d,]*\), .+ and \d+ more nodes \([\d,]+\)\./, text);
    const height = await page.locator('#energy-api-budget-state').evaluate((e) => e.getBoundingClientRect().height);
    assert.ok(height < 100, `the row is ${height} px high: ${text}`);
    await h.screenshot(page, 'fleet-config-budget.png');
    await page.click('#node-config-dialog-cancel');
  });

  it('the dashboard\'s site picker narrows the sites as one types, and a site chosen is shown', async () => {
    await page.goto(demo.dashboardUrl);
    await page.waitForSelector(`${SITE_PICKER} input`);
    const site = devices.find((d) => /café|bakery|clinic|pharmacy|brewery/i.test(d.label) && d.label.split(' ').length === 2) || devices[devices.length - 1];
    await page.click(`${SITE_PICKER} .v-field`);
    // The field holds the site shown: select it and type over it, as one does. Ctrl+A pressed before the click had
    // moved the focus into the input selected nothing, and the id typed after the label matched no site.
    const input = page.locator(`${SITE_PICKER} input`);
    await input.selectText();
    await input.pressSequentially(site.id, { delay: 20 });
    await page.waitForFunction(([sel, id]) => document.querySelector(sel)?.value === id, [`${SITE_PICKER} input`, site.id]);
    await page.waitForFunction(() => document.querySelectorAll('.v-overlay .v-list-item').length === 1, null);
    const offered = await page.$$eval('.v-overlay .v-list-item', (els) => els.map((e) => e.innerText));
    assert.ok(offered[0].includes(site.id) && offered[0].includes(site.label), offered.join(' | '));
    await h.screenshot(page, 'fleet-dashboard-site-search.png');
    await page.click('.v-overlay .v-list-item');
    await page.waitForFunction(([sel, label]) => (document.querySelector(sel)?.innerText || '').includes(label), [NOW_TILES, site.label]);
    await h.screenshot(page, 'fleet-dashboard-site-chosen.png', { fullPage: true });
  });

  it('reached no outside host and logged no page error', () => {
    assert.deepStrictEqual(browser.outside, []);
    assert.deepStrictEqual(browser.consoleErrors.filter((e) => !/Failed to load resource/.test(e)), []);
  });
});
