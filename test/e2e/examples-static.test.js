'use strict';
// What every example promises without a browser: its request cost per day (stated in its first comment, and
// a quarter of the default daily budget at most for all that `npm start` deploys), Dashboard 2 only where the
// first comment says so, where the key goes and how to run the simulator, and a tidy layout (estimated sizes;
// test/e2e/examples-bare.test.js measures the real ones in the editor).
const assert = require('node:assert/strict');
const { readExamples, buildDemoFlows } = require('../../scripts/demo-flows');
const { estimateRequestsPerDay } = require('../support/request-costs');
const { nodeBoxes, overlaps } = require('./layout');

const DEFAULT_TPD = 10000;
/** Relative times ("-1h") only matter by their span: any fixed day gives the same counts. */
const NOW_MS = Date.UTC(2026, 0, 15);
const examples = readExamples();
const cost = (flow) => flow.reduce((sum, n) => sum + estimateRequestsPerDay(n, flow, { nowMs: NOW_MS }), 0);
const firstComment = (example) => example.nodes.find((n) => n.type === 'comment');
const isDashboard = (example) => example.nodes.some((n) => /^ui-/.test(n.type));

describe('examples: cost, requirements, layout', function () {
  it('the flows npm start deploys together use at most a quarter of the default daily budget', function () {
    const flows = buildDemoFlows({ baseUrl: 'http://127.0.0.1:8787/v3' });
    const perExample = examples.map((e) => `${e.name}: ${cost(flows.filter((n) => n.z === firstComment(e).z))}`);
    const total = cost(flows);
    assert.ok(total <= DEFAULT_TPD / 4, `npm start's flows would make ${total} requests a day (> ${DEFAULT_TPD / 4}): ${perExample.join('; ')}`);
  });

  for (const example of examples) {
    describe(example.name, function () {
      const comment = firstComment(example);
      const text = `${comment.name}\n${comment.info}`;

      it('states its request cost per day in its first comment', function () {
        const perDay = cost(example.nodes);
        const stated = /about \**(\d+) requests a day/.exec(text);
        if (perDay === 0) assert.match(text, /no requests on a schedule/, 'says it makes no scheduled requests');
        else {
          assert.ok(stated, 'says "about N requests a day"');
          assert.ok(Math.abs(Number(stated[1]) - perDay) <= Math.max(1, perDay * 0.1), `states ${stated[1]}, the schedules make ${perDay}`);
        }
      });

      it('uses Dashboard 2 only when its first comment says so', function () {
        const says = /Dashboard 2/.test(comment.name) && /needs .*Dashboard 2/i.test(comment.info);
        assert.equal(says, isDashboard(example), isDashboard(example) ? 'a dashboard example must say it needs Dashboard 2 in its first comment' : 'no ui-* node outside a dashboard example');
      });

      it('says where the key goes and how to run the simulator', function () {
        assert.match(comment.info, /API key/);
        assert.match(comment.info, /npx -p @energy-monitor\/node-red-energy-api energy-api-simulator/);
        assert.match(comment.info, /--port/);
        assert.match(comment.info, /demo key/);
        assert.doesNotMatch(comment.info, /key_[0-9a-f]{8,}/, 'no hard-coded key');
      });

      it('is laid out tidily: nothing overlaps, comment on the canvas, wires left to right, every node in a group', function () {
        const boxes = nodeBoxes(example.nodes);
        assert.deepEqual(overlaps(boxes), []);
        for (const box of boxes.filter((b) => b.node.type === 'comment')) {
          assert.ok(box.left >= 0 && box.top >= 0, `comment "${box.node.name}" starts inside the canvas`);
        }
        const byId = new Map(example.nodes.map((n) => [n.id, n]));
        for (const node of example.nodes) {
          for (const target of (node.wires || []).flat()) {
            assert.ok(byId.get(target).x > node.x, `wire ${node.name || node.id} → ${byId.get(target).name || target} runs right to left`);
          }
        }
        const loose = example.nodes.filter((n) => 'x' in n && n.type !== 'comment' && n.type !== 'group' && !n.g).map((n) => n.name || n.id);
        assert.deepEqual(loose, [], 'nodes outside any group');
      });
    });
  }
});
