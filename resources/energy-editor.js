/* Editor helpers shared by the energy-api nodes: pickers filled by the deployed config node, the polling-cost hint and
 * durations typed with a unit.
 * Requests use relative URLs so that a custom httpAdminRoot works. */
(function () {
  'use strict';
  var NS = '@energy-monitor/node-red-energy-api/energy-api:common.';
  function t(key, opts) { return RED._(NS + key, opts); }

  $('<style>').text('.energy-api-warning { color: var(--red-ui-text-color-error, #c00); }').appendTo('head');

  function configId(apiSelector) {
    var id = $(apiSelector).val();
    return id && id !== '_ADD_' ? id : null;
  }

  function fetchList(apiSelector, path) {
    var id = configId(apiSelector);
    if (!id) return $.Deferred().reject({ status: 503 }).promise();
    return $.getJSON('energy-api/' + encodeURIComponent(id) + path);
  }

  function showHint($hint, xhr) {
    if (!xhr || xhr.status === 503) $hint.text(t('picker.deployFirst')).show();
    else $hint.text(t('picker.failed', { message: (xhr.responseJSON && xhr.responseJSON.message) || xhr.statusText })).show();
  }

  /**
   * Fills a <datalist> for a typeable input (the user may always type an id by hand) and a button beside it
   * that lists every choice: a datalist only offers the choices that match what the input already holds.
   */
  function fill($input, $hint, request, toOption) {
    var listId = $input.attr('id') + '-options';
    var $list = $('#' + listId);
    if (!$list.length) $list = $('<datalist>').attr('id', listId).insertAfter($input);
    $input.attr('list', listId);
    var $button = choicesButton($input);
    $hint.text(t('picker.loading')).show();
    return request.then(function (items) {
      var options = items.map(toOption);
      $list.empty();
      options.forEach(function (option) {
        $('<option>').attr('value', option.value).text(option.text).appendTo($list);
      });
      $button.data('options', options).prop('disabled', options.length === 0);
      $hint.hide();
      return items;
    }, function (xhr) { $button.data('options', []).prop('disabled', true); showHint($hint, xhr); });
  }

  function choicesButton($input) {
    var $button = $input.next('datalist').next('.energy-api-choices');
    if ($button.length) return $button;
    $input.css('width', 'calc(70% - 40px)');
    $button = $('<button type="button" class="red-ui-button energy-api-choices" style="margin-left:4px;">' +
      '<i class="fa fa-caret-down"></i></button>').attr('title', t('picker.all')).prop('disabled', true);
    $button.insertAfter($input.next('datalist'));
    $button.on('click', function (evt) {
      evt.preventDefault();
      choicesPanel($input, $button.data('options') || []);
    });
    return $button;
  }

  /** Choices shown at once in the panel: a fleet's hundreds of devices are searched, not scrolled. */
  var SHOWN = 50;

  /**
   * The choices in a panel under the input, with a search field over their ids and labels (every word typed must
   * match); the first SHOWN matches are listed, the count of the rest is said. Enter takes the first match.
   */
  function choicesPanel($input, options) {
    var $content = $('<div class="energy-api-choices-panel">').css({ padding: '6px', width: Math.max($input.outerWidth() + 40, 360) + 'px' });
    var $search = $('<input type="text" class="energy-api-choices-search">');
    $('<div>').css({ marginBottom: '6px' }).append($search).appendTo($content);
    var $list = $('<ul class="red-ui-menu">').css({ maxHeight: '300px', overflowY: 'auto' }).appendTo($content);
    var $note = $('<div class="energy-api-choices-note form-tips">').css({ marginTop: '6px' }).hide().appendTo($content);
    var panel = RED.popover.panel($content);
    function choose(option) {
      $input.val(option.value).trigger('change');
      panel.hide();
    }
    function render() {
      // The search field's delayed change may come after the panel has closed and removed it (Enter, a click).
      if (!$search.searchBox('instance')) return;
      var words = String($search.val() || '').toLowerCase().split(/\s+/).filter(Boolean);
      var matches = options.filter(function (o) {
        var text = (o.value + ' ' + o.text).toLowerCase();
        return words.every(function (w) { return text.indexOf(w) >= 0; });
      });
      $list.empty();
      matches.slice(0, SHOWN).forEach(function (option) {
        $('<a href="#">').text(option.value + '  ·  ' + option.text).on('click', function (evt) {
          evt.preventDefault();
          choose(option);
        }).appendTo($('<li>').appendTo($list));
      });
      $search.searchBox('count', words.length ? matches.length + ' / ' + options.length : '');
      if (matches.length === 0) $note.text(t('picker.noMatch')).show();
      else if (matches.length > SHOWN) $note.text(t('picker.more', { shown: SHOWN, total: matches.length })).show();
      else $note.hide();
    }
    $search.searchBox({ delay: 80, change: render });
    $search.attr('placeholder', t('picker.search', { total: options.length }));
    // Keys handled here go no further: the editor's own shortcuts (which Enter also has) would meet a panel
    // already removed.
    $search.on('keydown', function (evt) {
      if (evt.key === 'Enter') {
        evt.preventDefault();
        evt.stopPropagation();
        render(); // what is typed now, not what the delayed search last listed
        var first = $list.find('a').first();
        if (first.length) first.trigger('click');
      } else if (evt.key === 'ArrowDown') {
        evt.preventDefault();
        evt.stopPropagation();
        $list.find('a').first().trigger('focus');
      }
    });
    $list.on('keydown', 'a', function (evt) {
      var $item = $(this).parent();
      if (evt.key === 'Enter') evt.stopPropagation();
      if (evt.key === 'ArrowDown' && $item.next().length) { evt.preventDefault(); evt.stopPropagation(); $item.next().children('a').trigger('focus'); }
      if (evt.key === 'ArrowUp') { evt.preventDefault(); evt.stopPropagation(); ($item.prev().length ? $item.prev().children('a') : $search).trigger('focus'); }
    });
    render();
    panel.show({ target: $input, align: 'right' });
    $search.trigger('focus');
  }

  function devicePicker(input, apiSelector, hint) {
    var $input = $(input), $hint = $(hint);
    function load() {
      return fill($input, $hint, fetchList(apiSelector, '/devices'), function (d) {
        return { value: d.id, text: (d.label || '(no label)') + ' · ' + (d.model || '?') };
      });
    }
    $(apiSelector).on('change', load);
    return load();
  }

  function memberPicker(kind, input, deviceInput, apiSelector, hint) {
    var $input = $(input), $hint = $(hint);
    function load() {
      var deviceId = $(deviceInput).val();
      if (!deviceId) return $.Deferred().resolve([]).promise();
      var model = '';
      return fill($input, $hint, fetchList(apiSelector, '/devices/' + encodeURIComponent(deviceId)).then(function (device) {
        model = device.model || '';
        return device[kind] || [];
      }), function (m) {
        var extra = kind === 'switches' ? ' · ' + m.state : ' · ' + m.ctRating + ' A';
        return { value: m.id, text: (m.label || m.id) + extra };
      }).then(function (items) {
        if (items && items.length === 0) $hint.text(t('picker.none.' + kind, { device: deviceId, model: model })).show();
        return items;
      });
    }
    $(deviceInput).on('change', load);
    $(apiSelector).on('change', load);
    return load();
  }

  /** Shows what polling every `interval` seconds costs per day against the key's daily budget. */
  function costHint(hint, intervalInput, apiSelector, requestsPerPoll) {
    var $hint = $(hint);
    function update() {
      var interval = Number($(intervalInput).val());
      if (!interval || interval <= 0) return $hint.hide();
      var perDay = Math.round(Math.ceil(86400 / interval) * (requestsPerPoll ? requestsPerPoll() : 1));
      var tpd = Number((RED.nodes.node(configId(apiSelector) || '') || {}).tpd) || 10000;
      var text = t('cost.perDay', { interval: formatDuration(interval), requests: perDay, share: Math.round((perDay / tpd) * 1000) / 10, tpd: tpd });
      if (perDay > tpd) text += ' ' + t('cost.tooMuch');
      $hint.text(text).toggleClass('energy-api-warning', perDay > tpd).show();
    }
    $(intervalInput).on('change keyup', update);
    $(apiSelector).on('change', update);
    update();
  }

  /** Seconds in words with the largest whole unit: 86400 -> "24 h", 90 -> "90 s", 5400 -> "90 min". */
  var DURATION_UNITS = [{ unit: 'h', s: 3600 }, { unit: 'min', s: 60 }, { unit: 's', s: 1 }];
  function wholeUnit(seconds) {
    var n = Number(seconds);
    return DURATION_UNITS.filter(function (u) { return n >= u.s && n % u.s === 0; })[0] || DURATION_UNITS[2];
  }
  function formatDuration(seconds) {
    var u = wholeUnit(seconds);
    return Number(seconds) / u.s + ' ' + u.unit;
  }

  /**
   * A duration typed with a unit (s, min, h). The node's property stays in seconds, in the form's own input
   * (hidden here, so flows keep their shape); the number and unit shown beside it write it back.
   */
  function durationInput(input) {
    var $stored = $(input);
    if (!$stored.length || $stored.data('energy-duration')) return;
    var id = $stored.attr('id').replace(/^node-(config-)?input-/, 'energy-duration-');
    var $number = $('<input type="number" step="any">').attr({ id: id, min: $stored.attr('min'), placeholder: $stored.attr('placeholder'), 'data-i18n': $stored.attr('data-i18n') })
      .css('width', $stored[0].style.width || '80px');
    var $unit = $('<select>').attr('id', id + '-unit').css({ width: '70px', 'margin-left': '4px' });
    DURATION_UNITS.slice().reverse().forEach(function (u) { $('<option>').val(u.s).text(u.unit).appendTo($unit); });
    var raw = $stored.val();
    if (raw === '' || raw === null || raw === undefined) {
      $unit.val('1');
    } else {
      var u = wholeUnit(raw);
      $unit.val(String(u.s));
      $number.val(String(Number(raw) / u.s));
    }
    function write() {
      var v = $number.val();
      $stored.val(v === '' ? '' : String(Math.round(Number(v) * Number($unit.val())))).trigger('change');
      $number.toggleClass('input-error', $stored.hasClass('input-error'));
    }
    $number.on('change keyup input', write);
    $unit.on('change', write);
    $stored.data('energy-duration', true).hide().after($number, $unit);
    setTimeout(function () { $number.toggleClass('input-error', $stored.hasClass('input-error')); }, 0);
  }

  /**
   * Editor twin of the runtime migrations (src/nodes/<node>/migrations.ts): a node saved by an older release
   * and opened in the editor is saved back in the current shape. Version 1 fills what a 0.1 save lacks with
   * the defaults. Call first in oneditprepare (the form is already filled from the node then).
   * `steps` (optional): the node's later steps, `{ version, up(values) }`, mirroring its runtime steps.
   */
  function upgradeConfig(node, prefix, steps) {
    var defaults = node._def.defaults;
    var current = defaults.configVersion.value;
    var saved = Number(node.configVersion) || 0;
    if (saved >= current) return;
    var values = {};
    Object.keys(defaults).forEach(function (name) {
      values[name] = node[name] === undefined || node[name] === null ? defaults[name].value : node[name];
    });
    (steps || []).filter(function (s) { return s.version > saved; }).forEach(function (s) { values = s.up(values); });
    Object.keys(values).forEach(function (name) {
      if (name === 'configVersion' || values[name] === node[name]) return;
      var $input = $('#' + prefix + '-' + name);
      if ($input.is(':checkbox')) $input.prop('checked', values[name] === true);
      else $input.val(values[name]);
    });
    $('#' + prefix + '-configVersion').val(current);
  }

  /** A node dropped from the palette takes the config node when there is only one, instead of starting invalid. */
  function pickOnlyConfig(node) {
    if (node.api) return;
    var configs = [];
    RED.nodes.eachConfig(function (n) { if (n.type === 'energy-api') configs.push(n); });
    if (configs.length === 1) node.api = configs[0].id;
  }

  window.EnergyApiEditor = { devicePicker: devicePicker, memberPicker: memberPicker, costHint: costHint, upgradeConfig: upgradeConfig, pickOnlyConfig: pickOnlyConfig, durationInput: durationInput, formatDuration: formatDuration, t: t };
})();
