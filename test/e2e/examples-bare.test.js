'use strict';
// A palette user without Dashboard 2 imports each example from "Import example flow": every example that is not a
// dashboard example deploys without stopping the flows already running, and its tab, as the editor draws it,
// has no overlapping nodes or status labels and its comment on the visible canvas (screenshots in test-artifacts/).
const assert = require('node:assert');
const h = require('./harness');
const { startBareNodeRed, admin } = require('./bare-node-red');
const { readExamples, DEMO_CONFIG_ID } = require('../../scripts/demo-flows');

const isDashboard = (example) => example.nodes.some((n) => /^ui-/.test(n.type));
const slug = (name) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** A flow the user already runs: its inject counts into flow context every 0.5 s while flows are started. */
const RUNNING = [
  { id: 'aa00000000000001', type: 'tab', label: 'Already running', disabled: false, info: '' },
  { id: 'aa00000000000002', type: 'inject', z: 'aa00000000000001', name: 'tick', props: [], repeat: '0.5', crontab: '', once: true, onceDelay: 0.1, topic: '', x: 120, y: 80, wires: [['aa00000000000003']] },
  { id: 'aa00000000000003', type: 'function', z: 'aa00000000000001', name: 'count', func: "flow.set('ticks', (flow.get('ticks') || 0) + 1);\nreturn null;", outputs: 1, x: 300, y: 80, wires: [[]] },
];

describe('e2e: examples imported into a Node-RED without Dashboard 2', function () {
  this.timeout(240000);
  const examples = readExamples();
  let nr;
  let browser;
  let page;

  async function ticks() {
    const context = await admin(nr.editorUrl, 'GET', `context/flow/${RUNNING[0].id}`);
    const store = context.default || context;
    return store.ticks ? Number(store.ticks.msg) : 0;
  }

  async function stillRunning(what) {
    const before = await ticks();
    await page.waitForTimeout(1500);
    const after = await ticks();
    assert.ok(after > before, `the flow already running stopped after ${what} (ticks ${before} → ${after})`);
  }

  const workspaces = () => page.evaluate(() => { const ids = []; RED.nodes.eachWorkspace((w) => ids.push(w.id)); return ids; });

  /**
   * Each example is imported as a user with one flow of their own would: the previous example is removed from
   * the editor first, so nothing clashes and Node-RED places the nodes where the flow JSON says.
   */
  async function importExample(example) {
    await page.evaluate((keep) => {
      const tabs = [];
      RED.nodes.eachWorkspace((w) => { if (w.id !== keep) tabs.push(w); });
      tabs.forEach((w) => RED.workspaces.delete(w));
      const configs = [];
      RED.nodes.eachConfig((n) => { if (n.type === 'energy-api') configs.push(n.id); });
      configs.forEach((id) => RED.nodes.remove(id));
      RED.nodes.dirty(true);
    }, RUNNING[0].id);
    const before = await workspaces();
    await h.selectExampleToImport(page, example.name);
    await page.click('#red-ui-clipboard-dialog-import-opt-new');
    await page.click('#red-ui-clipboard-dialog-ok');
    // The shared energy-api config node is already there after the first import: keep it ("Import copy").
    await page.waitForSelector('#red-ui-clipboard-dialog', { state: 'hidden' });
    await page.waitForFunction((known) => {
      const ids = [];
      RED.nodes.eachWorkspace((w) => ids.push(w.id));
      return ids.filter((id) => !known.includes(id)).length === 1;
    }, before);
    const added = (await workspaces()).filter((id) => !before.includes(id));
    // The imported nodes follow the mouse until a click drops them (anchored at the first node, the comment):
    // drop them where the flow JSON puts that node, as a user lining the flow up with the canvas does.
    const anchor = example.nodes.find((n) => 'x' in n && n.type !== 'group');
    const chart = await page.evaluate(() => {
      const el = document.getElementById('red-ui-workspace-chart');
      el.scrollLeft = 0;
      el.scrollTop = 0;
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, scale: RED.view.scale() };
    });
    const at = { x: chart.left + anchor.x * chart.scale, y: chart.top + anchor.y * chart.scale };
    await page.mouse.move(at.x + 40, at.y + 40);
    await page.mouse.move(at.x, at.y, { steps: 4 });
    await page.mouse.click(at.x, at.y);
    return added[0];
  }

  /** Points the examples' config node at the simulator and gives it the demo key, as a user does in its dialog. */
  async function configureApi() {
    await page.evaluate(({ id, baseUrl, key }) => {
      const config = RED.nodes.node(id);
      config.baseUrl = baseUrl;
      config.credentials = { apiKey: key };
      config.changed = true;
      RED.nodes.dirty(true);
    }, { id: DEMO_CONFIG_ID, baseUrl: nr.simulator.baseUrl, key: nr.simulator.keys.full });
  }

  /** Sizes of the nodes of one tab as the editor drew them (node body, and status label when shown). */
  function drawnSizes(tabId) {
    return page.evaluate((z) => {
      const sizes = [];
      RED.nodes.eachNode((n) => {
        if (n.z !== z) return;
        const el = document.getElementById(n.id);
        if (!el) return;
        const body = (el.querySelector('.red-ui-flow-node') || el).getBoundingClientRect();
        const status = el.querySelector('.red-ui-flow-node-status-group');
        const shown = status && status.getAttribute('style') !== 'display: none;' && status.getBBox().width > 0;
        const st = shown ? status.getBoundingClientRect() : null;
        sizes.push({ type: n.type, name: n.name || '', w: body.width, h: body.height, statusW: st ? st.width : 0, statusH: st ? st.height : 0, statusDy: st ? st.top - body.bottom : 0 });
      });
      return sizes;
    }, tabId);
  }

  /**
   * Boxes of the example's nodes and status labels at their positions in the flow JSON, with the sizes the editor
   * drew (matched by type and name: an imported copy has new ids, and is placed where the user drops it).
   */
  function boxesFromJson(example, sizes) {
    const boxes = [];
    for (const node of example.nodes.filter((n) => 'x' in n && n.type !== 'group')) {
      const matches = sizes.filter((s) => s.type === node.type && s.name === (node.name || ''));
      assert.ok(matches.length >= 1, `${node.type} "${node.name}" was drawn`);
      const size = matches[0];
      const box = { id: node.id, name: node.name || node.type, left: node.x - size.w / 2, right: node.x + size.w / 2, top: node.y - size.h / 2, bottom: node.y + size.h / 2 };
      boxes.push(box);
      if (size.statusW > 0) {
        const top = box.bottom + size.statusDy;
        boxes.push({ id: node.id, name: `status of ${box.name}`, left: box.left, right: box.left + size.statusW, top, bottom: top + size.statusH });
      }
    }
    return boxes;
  }

  function overlapping(boxes) {
    const found = [];
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) {
        const a = boxes[i];
        const b = boxes[j];
        if (a.id !== b.id && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) found.push(`${a.name} × ${b.name}`);
      }
    }
    return found;
  }

  before(async function () {
    h.requireChromium(this);
    const clockOffsetMs = h.e2eClockOffsetMs();
    nr = await startBareNodeRed({ clockOffsetMs });
    await admin(nr.editorUrl, 'POST', 'flows', { flows: RUNNING });
    browser = await h.launchBrowser({ clockOffsetMs });
    page = browser.page;
    await h.openEditor(page, nr.editorUrl);
  });

  after(async () => {
    if (browser) await browser.close();
    if (nr) await nr.stop();
  });

  it('runs without Dashboard 2: its nodes are not installed', async () => {
    const modules = new Set((await admin(nr.editorUrl, 'GET', 'nodes')).map((n) => n.module));
    assert.ok(!modules.has('@flowfuse/node-red-dashboard'), [...modules].join(', '));
    assert.ok(modules.has('@energy-monitor/node-red-energy-api'));
    await stillRunning('start');
  });

  for (const example of examples.filter((e) => !isDashboard(e))) {
    it(`${example.name}: imports, deploys without stopping other flows, and is drawn without overlaps`, async () => {
      const logMark = nr.logs.length;
      const tabId = await importExample(example);
      await configureApi();
      await h.deploy(page);
      await stillRunning(`deploying "${example.name}"`);
      const logged = nr.logs.slice(logMark).join('\n');
      assert.doesNotMatch(logged, /missing types|\[error\]/i);

      await page.evaluate((id) => {
        RED.workspaces.show(id);
        RED.view.select({ nodes: [] });
        $('.red-ui-notification').remove();
        const chart = document.getElementById('red-ui-workspace-chart');
        chart.scrollLeft = 0;
        chart.scrollTop = 0;
      }, tabId);
      await page.waitForTimeout(800);
      await h.screenshot(page, `bare-example-${slug(example.name)}.png`);
      const sizes = await drawnSizes(tabId);
      assert.strictEqual(sizes.length, example.nodes.filter((n) => 'x' in n && n.type !== 'group').length, 'every node was drawn');
      const boxes = boxesFromJson(example, sizes);
      assert.deepStrictEqual(overlapping(boxes), []);
      for (const comment of boxes.filter((b) => example.nodes.find((n) => n.id === b.id).type === 'comment')) {
        assert.ok(comment.left >= 0 && comment.top >= 0, `comment "${comment.name}" is cut off at the canvas edge`);
      }
    });
  }

  it('a dashboard example is not importable without Dashboard 2: its ui-* types are unknown here (the check above can fail)', async () => {
    const dashboard = examples.filter(isDashboard);
    assert.ok(dashboard.length >= 1);
    const unknown = await page.evaluate((types) => types.filter((t) => !RED.nodes.getType(t)), [...new Set(dashboard.flatMap((e) => e.nodes.map((n) => n.type)).filter((t) => /^ui-/.test(t)))]);
    assert.ok(unknown.length > 0);
    assert.deepStrictEqual(h.errorLines({ logs: nr.logs }), []);
  });
});
