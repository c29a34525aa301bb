'use strict';
// The example flows: deployed by `npm start`, and imported one by one from the editor's "Import example flow".
const assert = require('node:assert');
const h = require('./harness');
const { readExamples, disabledInDemo } = require('../../scripts/demo-flows');

/**
 * Nodes of the editor with a red status (error), as "<type> <name>: <text>". Dashboard 2's
 * ui-switch shows its "off" state as a red ring: that one is not an error.
 */
function redStatuses(page) {
  return page.evaluate(() => {
    const red = [];
    RED.nodes.eachNode((n) => {
      if (n.status && n.status.fill === 'red' && n.type !== 'ui-switch') red.push(`${n.type} ${n.name || n.id}: ${n.status.text}`);
    });
    return red;
  });
}

function errorNotifications(page) {
  return page.locator('.red-ui-notification-error:visible').allInnerTexts();
}

describe('e2e: example flows', function () {
  this.timeout(150000);
  const examples = readExamples();
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

  it('npm start deploys every example on its own tab and they run without errors', async () => {
    assert.ok(examples.length >= 9, `${examples.length} examples`);
    const tabs = await page.evaluate(() => { const t = []; RED.nodes.eachWorkspace((w) => t.push(w.label)); return t; });
    assert.deepStrictEqual([...tabs].sort(), examples.map((e) => e.name).sort());
    await page.waitForTimeout(6000); // the on-deploy injects fire after 0.1–3 s
    assert.deepStrictEqual(await redStatuses(page), []);
    assert.deepStrictEqual(h.errorLines(demo), []);
    await h.screenshot(page, 'editor-demo-flows.png');
  });

  it('pressing every inject button of the examples runs them without errors', async () => {
    const logMark = demo.logs.length;
    // npm start deploys some tabs disabled (scripts/demo-flows.js; SQLite's only on a Node.js without it): their injects do not run there.
    const injects = examples.filter((e) => !disabledInDemo(e.name)).flatMap((e) => e.nodes.filter((n) => n.type === 'inject'));
    for (const inject of injects) {
      // What the inject button in the editor does.
      const res = await fetch(new URL(`inject/${inject.id}`, demo.editorUrl), { method: 'POST' });
      assert.strictEqual(res.status, 200, `inject ${inject.name}`);
    }
    await page.waitForTimeout(8000);
    assert.deepStrictEqual(await redStatuses(page), []);
    assert.deepStrictEqual(h.errorLines(demo, logMark), []);
  });

  it('every example imports from "Import example flow" and deploys without errors', async () => {
    const logMark = demo.logs.length;
    const before = await page.evaluate(() => { let n = 0; RED.nodes.eachNode(() => { n += 1; }); return n; });
    for (const example of examples) {
      await h.selectExampleToImport(page, example.name);
      await page.click('#red-ui-clipboard-dialog-import-opt-new');
      await page.click('#red-ui-clipboard-dialog-ok');
      // The demo already has these ids: Node-RED offers "Import copy", which keeps the shared config nodes.
      const copy = page.locator('.red-ui-notification button:has-text("Import copy")');
      await copy.click();
      await page.waitForSelector('#red-ui-clipboard-dialog', { state: 'hidden' });
    }
    // Flow groups have x/y too, but RED.nodes.eachNode() does not list them.
    const imported = examples.reduce((n, e) => n + e.nodes.filter((x) => 'x' in x && x.type !== 'group').length, 0);
    const after = await page.evaluate(() => { let n = 0; RED.nodes.eachNode(() => { n += 1; }); return n; });
    assert.strictEqual(after - before, imported, 'every node of every example was imported');
    const configs = await page.evaluate(() => { const c = []; RED.nodes.eachConfig((n) => { if (n.type === 'energy-api') c.push(n.id); }); return c; });
    assert.strictEqual(configs.length, 1, 'the imports share the one energy-api config node');

    await h.deploy(page);
    await page.waitForTimeout(6000);
    assert.deepStrictEqual(await redStatuses(page), []);
    assert.deepStrictEqual(await errorNotifications(page), []);
    assert.deepStrictEqual(h.errorLines(demo, logMark), []);
    await h.screenshot(page, 'editor-imported-examples.png');
  });
});
