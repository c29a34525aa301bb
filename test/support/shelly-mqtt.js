'use strict';
// The Shelly Gen2 double's MQTT face, as Shelly documents it for Gen2 devices: JSON-RPC frames on `<id>/rpc`
// ({id, src, method, params}) answered on `<src>/rpc`, and the switch's status published on `<id>/status/switch:0`
// whenever it changes. The double itself (src/simulator/devices/shelly.ts) runs on the simulator's clock; this bridge
// looks at it every 20 ms of real time and publishes a change, as the device would on its own.
const { mqtt } = require('./home-assistant');

async function bridgeShellyMqtt(shelly, brokerUrl, id = 'shellyplus1pm-double') {
  const client = mqtt.connect(brokerUrl, { clientId: `${id}-${process.pid}`, reconnectPeriod: 100 });
  await new Promise((resolve, reject) => { client.once('connect', resolve); client.once('error', reject); });
  await client.subscribeAsync(`${id}/rpc`);
  let last;
  const bridge = { frames: 0 };
  const publishIfChanged = () => {
    const status = shelly.status();
    const key = JSON.stringify([status.output, status.apower]);
    if (key === last) return;
    last = key;
    client.publish(`${id}/status/switch:0`, JSON.stringify(status));
  };
  client.on('message', (topic, payload) => {
    let frame;
    try { frame = JSON.parse(payload.toString()); } catch { return; }
    const answer = shelly.handle('POST', new URL('http://double/rpc'), JSON.stringify(frame));
    bridge.frames += 1;
    if (typeof frame.src === 'string') client.publish(`${frame.src}/rpc`, JSON.stringify(answer.body));
    publishIfChanged();
  });
  publishIfChanged();
  const timer = setInterval(publishIfChanged, 20);
  return Object.assign(bridge, {
    id,
    /** Publishes the status now, changed or not (a subscriber that came after the last change). */
    publishNow: () => { last = undefined; publishIfChanged(); },
    close: async () => { clearInterval(timer); await client.endAsync(); },
  });
}

module.exports = { bridgeShellyMqtt };
