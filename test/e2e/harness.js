'use strict';
// Shared set-up of the end-to-end tests: the Node-RED that `npm start` starts (scripts/start.js,
// on free ports and a temp user directory) and Debian's Chromium driven by playwright-core.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { start } = require('../../scripts/start');
const { shiftDate } = require('../../scripts/shifted-clock');
const { skipBecause } = require('../support/skip');

const ROOT = path.resolve(__dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Screenshots; scripts/test.js gives each suite its own folder, as suites run side by side. */
const ARTIFACTS = process.env.TEST_ARTIFACTS_DIR || path.join(ROOT, 'test-artifacts');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** CI installs Chromium, so there a missing browser fails the suite; locally the suite is skipped. */
function requireChromium(mochaContext) {
  if (fs.existsSync(CHROMIUM)) return;
  const message = `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`;
  if (process.env.CI) throw new Error(message);
  skipBecause(mochaContext, message);
}

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Where the end-to-end tests start the simulator's and Node-RED's clock (scripts/shifted-clock.js), never the wall
 * clock: a minute before midnight in Sydney, the demo sites' zone (12:59 UTC), on 4 April 2026, the night its daylight
 * saving time ends. The clocks run on from there, so every run crosses the sites' day boundary the same way.
 */
const E2E_START_MS = Date.UTC(2026, 3, 4, 12, 59);
/** How far from the wall clock that start is, as start() and startBareNodeRed() take it (`clockOffsetMs`). */
const e2eClockOffsetMs = () => E2E_START_MS - Date.now();

/** What `npm start` starts, on free ports, on the e2e clock (demo.clockOffsetMs); the runtime log is kept for the assertions. */
async function startDemo() {
  const userDir = tempDir('energy-e2e-nr-');
  const clockOffsetMs = e2eClockOffsetMs();
  const demo = await start({ port: 0, simPort: 0, userDir, log: () => {}, apiUrl: '', clockOffsetMs });
  demo.clockOffsetMs = clockOffsetMs;
  const stop = demo.stop;
  demo.stop = async () => {
    await stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  };
  return demo;
}

/**
 * Chromium with a fresh profile; `options` go to playwright's context (a `timezoneId` other than the machine's).
 * With `clockOffsetMs`, the pages' Date runs that far from the wall clock, as the demo's does.
 */
async function launchBrowser({ clockOffsetMs, ...options } = {}) {
  const { chromium } = require('playwright-core');
  const profile = tempDir('energy-e2e-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1440, height: 900 }, ...options,
  });
  // One bound for every wait on a page state, sized for a loaded host rather than a few seconds per step (at load
  // 10-14 on 2 cores a list of 307 sites took longer than 10 s to narrow), and shorter than a test's own timeout, so
  // a state that never comes is named by the step that waited for it.
  context.setDefaultTimeout(60000);
  const page = context.pages()[0] || (await context.newPage());
  if (clockOffsetMs !== undefined) await context.addInitScript({ content: `(${shiftDate})(window, ${clockOffsetMs});` });
  const outside = [];
  const consoleErrors = [];
  context.on('request', (req) => {
    const url = new URL(req.url());
    if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol)) outside.push(req.url());
  });
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (err) => consoleErrors.push(err.stack || err.message));
  return {
    context, page, outside, consoleErrors,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the editor without its rotating info tips. Node-RED 5.0.7's editor starts the tips' first timer (1 s) when it
 * applies the user settings, but creates the tip box only once red/keymap.json has arrived; on a loaded host that
 * takes longer and the timer throws "Cannot read properties of undefined (reading 'html')" (red.js setTip,
 * `tipBox.html`): a race inside Node-RED 5, met with keymap.json 2 s late whatever nodes are installed. The tests
 * look for this package's page errors, so they turn the tips off, as a user can in the editor's settings.
 */
async function openEditor(page, editorUrl) {
  const res = await fetch(new URL('settings/user', editorUrl), {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2' },
    body: JSON.stringify({ editor: { view: { 'view-show-tips': false } } }),
  });
  if (!res.ok) throw new Error(`POST settings/user: ${res.status}`);
  await page.goto(editorUrl);
  await page.waitForSelector('#red-ui-palette-container-energy .red-ui-palette-node');
  await page.waitForFunction(() => window.RED && RED.nodes && $('#red-ui-loading-progress').is(':hidden') !== false, null);
}

async function screenshot(page, name, options = {}) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ ...options, path: file });
  return file;
}

/** Clicks Deploy and waits until the editor has nothing left to deploy; a confirm dialog (invalid or unknown nodes) fails. */
async function deploy(page) {
  await page.click('#red-ui-header-button-deploy');
  try {
    // While deploying the button is disabled too, with its spinner shown.
    await page.waitForFunction(() => $('#red-ui-header-button-deploy').hasClass('disabled') && $('.red-ui-deploy-button-spinner').is(':hidden'), null);
  } catch (err) {
    const shown = [...await page.locator('.ui-dialog:visible').allInnerTexts(), ...await page.locator('.red-ui-notification:visible').allInnerTexts()];
    throw new Error(`deploy did not complete${shown.length ? `: ${shown.join(' | ')}` : ''}`);
  }
}

/**
 * Opens the editor's "Import example flow" (the canvas menu's Insert entry) and selects one of this package's
 * examples. Not the main menu's Import and then its Examples tab: that dialog opens on Clipboard, whose
 * empty-text check runs 100 ms later and disables OK whatever tab is shown by then.
 */
async function selectExampleToImport(page, exampleName) {
  await page.evaluate(() => RED.actions.invoke('core:show-examples-import-dialog'));
  await page.waitForSelector('#red-ui-clipboard-dialog', { state: 'visible' });
  // The tree slides each folder open (a jQuery animation, after up to 400 ms of spinner): a click while the list
  // still grows and scrolls can land beside its item on Node-RED 5, whose folder labels stay at the top.
  async function clickWhenStill(label) {
    await label.waitFor({ state: 'visible' });
    await page.waitForFunction(() => $('#red-ui-clipboard-dialog :animated').length === 0);
    await label.click();
  }
  await clickWhenStill(page.locator('#red-ui-clipboard-dialog .red-ui-treeList-label', { hasText: '@energy-monitor/node-red-energy-api' }));
  const escaped = exampleName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await clickWhenStill(page.locator('#red-ui-clipboard-dialog .red-ui-treeList-label').filter({ hasText: new RegExp(`^${escaped}$`) }));
}

/**
 * Drags a node of `type` from the palette onto the canvas at `at` (canvas coordinates) and returns the new node's id.
 * The palette must be still first: a search cleared a moment ago shows the other categories again 100 ms later
 * (the search field's delay), which moves every node below them while the drag is starting.
 */
async function dropFromPalette(page, type, at) {
  await page.waitForFunction(() => $('#red-ui-palette-container .red-ui-palette-node[data-filter="true"]').length === 0 && $('#red-ui-palette :animated').length === 0);
  const known = await page.evaluate(() => { const ids = []; RED.nodes.eachNode((n) => ids.push(n.id)); return ids; });
  await page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`).dragTo(page.locator('#red-ui-workspace-chart'), { targetPosition: at });
  const added = await page.waitForFunction(([t, ids]) => {
    let id = null;
    RED.nodes.eachNode((n) => { if (n.type === t && !ids.includes(n.id)) id = n.id; });
    return id;
  }, [type, known]);
  return added.jsonValue();
}

async function adminGet(demo, route) {
  const res = await fetch(new URL(route, demo.editorUrl), { headers: { 'Node-RED-API-Version': 'v2', Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${route}: ${res.status}`);
  return res.json();
}

/** Lines of the runtime log at error level (Node-RED logs "[error] [type:name] message"). */
function errorLines(demo, from = 0) {
  return demo.logs.slice(from).filter((line) => /\[error\]/i.test(line));
}

/** The devices as the simulator's API returns them (the expected picker contents). */
async function simulatorDevices(demo) {
  const { EnergyApiClient } = require('../../dist/api/index.js');
  const client = new EnergyApiClient({ baseUrl: demo.simulator.baseUrl, apiKey: demo.simulator.keys.full });
  const ids = await client.listDevices();
  return Promise.all(ids.map((id) => client.getDevice(id)));
}

function packageNodeTypes() {
  const nodes = require(path.join(ROOT, 'package.json'))['node-red'].nodes;
  // Config nodes are not in the palette.
  return Object.keys(nodes).filter((type) => !['energy-api', 'energy-tariff'].includes(type));
}

module.exports = {
  ROOT, ARTIFACTS, e2eClockOffsetMs, requireChromium, startDemo, launchBrowser, openEditor, screenshot, deploy, selectExampleToImport, dropFromPalette, adminGet, errorLines, packageNodeTypes, simulatorDevices,
};
