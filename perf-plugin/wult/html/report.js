// SPDX-License-Identifier: GPL-2.0
// wult report --html: draws the plots from the JSON block the C code wrote
// (perf-plugin/report_html.c). Every number comes from there: histograms,
// cumulative shares and scatter points are drawn, never computed. What was
// drawn (and any error or blocked fetch) is written into #wult-selftest so
// a headless browser's --dump-dom can check the page (tests/host).
(function () {
	'use strict';
	var self = { errors: [], blocked: [], charts: [] };
	window.addEventListener('error', function (e) { self.errors.push(String(e.message)); });
	document.addEventListener('securitypolicyviolation', function (e) {
		self.blocked.push(e.violatedDirective + ' ' + e.blockedURI);
	});
	var conErr = console.error;
	console.error = function () {
		self.errors.push(Array.prototype.join.call(arguments, ' '));
		conErr.apply(console, arguments);
	};

	var D = JSON.parse(document.getElementById('wult-data').textContent);
	var plots = document.getElementById('plots');
	var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b',
		'#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
	var styles = ['circle', 'triangle', 'rect', 'crossRot', 'star', 'rectRot'];
	var many = D.files.length > 1;
	var charts = [];

	Chart.defaults.animation = false;
	Chart.defaults.font.size = 11;

	// One colour per state and file (a diff's files apart by colour too, not
	// only by point style and dash), never reused: past the ten of the
	// palette (--per-cpu's CPU x state groups) hues step round the wheel by
	// the golden angle, a saturated one each.
	var states = [];
	function stateIdx(s) {
		var i = states.indexOf(s);
		if (i < 0) { states.push(s); i = states.length - 1; }
		return i;
	}
	D.hist.forEach(function (h) { if (h.s !== 'all') stateIdx(h.s); });
	function nthColour(i) {
		if (i < palette.length) return palette[i];
		return 'hsl(' + Math.round((i - palette.length) * 137.508 % 360) + ',70%,' +
			(38 + 8 * (Math.floor((i - palette.length) / 7) % 3)) + '%)';
	}
	function colour(s, f) {
		if (s === 'all') return f ? nthColour(states.length * D.files.length + f - 1) : '#000000';
		return nthColour((f || 0) * states.length + stateIdx(s));
	}
	function label(f, s) { return many ? '[' + (f + 1) + '] ' + s : s; }
	function axisTitle(m) { return m.name + (m.unit ? ' (' + m.unit + ')' : ''); }

	function el(tag, cls, parent, text) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text) e.textContent = text;
		if (parent) parent.appendChild(e);
		return e;
	}

	// Drag a box to zoom, double-click to reset.
	function zoomable(chart, box) {
		var canvas = chart.canvas, start = null;
		var sel = el('div', 'sel', box);
		function pos(ev) {
			var r = canvas.getBoundingClientRect();
			return { x: ev.clientX - r.left, y: ev.clientY - r.top };
		}
		canvas.addEventListener('mousedown', function (ev) { start = pos(ev); });
		canvas.addEventListener('mousemove', function (ev) {
			if (!start) return;
			var p = pos(ev);
			sel.style.display = 'block';
			sel.style.left = Math.min(p.x, start.x) + 'px';
			sel.style.top = Math.min(p.y, start.y) + 'px';
			sel.style.width = Math.abs(p.x - start.x) + 'px';
			sel.style.height = Math.abs(p.y - start.y) + 'px';
		});
		window.addEventListener('mouseup', function (ev) {
			if (!start) return;
			var p = pos(ev), sx = chart.scales.x, sy = chart.scales.y;
			sel.style.display = 'none';
			if (Math.abs(p.x - start.x) > 4) {
				chart.options.scales.x.min = sx.getValueForPixel(Math.min(p.x, start.x));
				chart.options.scales.x.max = sx.getValueForPixel(Math.max(p.x, start.x));
			}
			if (Math.abs(p.y - start.y) > 4) {
				chart.options.scales.y.max = sy.getValueForPixel(Math.min(p.y, start.y));
				chart.options.scales.y.min = sy.getValueForPixel(Math.max(p.y, start.y));
			}
			start = null;
			chart.update();
		});
		canvas.addEventListener('dblclick', function () {
			['x', 'y'].forEach(function (a) {
				delete chart.options.scales[a].min;
				delete chart.options.scales[a].max;
			});
			chart.update();
		});
	}

	function tooltip(xm, ym) {
		return {
			callbacks: {
				label: function (c) {
					return c.dataset.label + ': ' + xm.name + ' ' + c.parsed.x + ' ' +
						xm.unit + ', ' + ym.name + ' ' + c.parsed.y + ' ' + ym.unit;
				}
			}
		};
	}

	function makeChart(parent, title, type, datasets, xs, ys, xm, ym, logToggle) {
		var box = el('div', 'plot', parent);
		el('h4', null, box, title);
		if (logToggle) {
			var lab = el('label', 'logy', box);
			var cb = el('input', null, lab);
			cb.type = 'checkbox';
			cb.checked = ys.type === 'logarithmic';
			lab.appendChild(document.createTextNode(' log y'));
		}
		var wrap = el('div', 'canvas', box);
		var canvas = el('canvas', null, wrap);
		var chart = new Chart(canvas, {
			type: type,
			data: { datasets: datasets },
			options: {
				// Data as {x, y} objects, unsorted (no 'normalized').
				parsing: false, responsive: true,
				maintainAspectRatio: false,
				plugins: { tooltip: tooltip(xm, ym), legend: { position: 'top', labels: { boxWidth: 12 } } },
				scales: { x: xs, y: ys },
			},
		});
		if (logToggle) {
			cb.addEventListener('change', function () {
				chart.options.scales.y.type = cb.checked ? 'logarithmic' : 'linear';
				chart.update();
			});
		}
		zoomable(chart, wrap);
		charts.push({ title: title, chart: chart });
		return chart;
	}

	function scatterSets(mi, xi) {
		return D.scatter.filter(function (s) { return s.m === mi && s.x === xi; })
			.map(function (s) {
				var pts = new Array(s.xy.length / 2);
				for (var i = 0; i < pts.length; i++)
					pts[i] = { x: s.xy[2 * i], y: s.xy[2 * i + 1] };
				return {
					label: label(s.f, s.s) + ' (' + pts.length + ' of ' + s.n + ')',
					data: pts, borderColor: colour(s.s, s.f), backgroundColor: colour(s.s, s.f),
					pointStyle: styles[s.f % styles.length], pointRadius: 1.5,
					pointHoverRadius: 4, showLine: false,
				};
			});
	}

	// Histogram: count per bucket as a step line from each lower edge.
	function histSets(mi, cumulative) {
		return D.hist.filter(function (h) { return h.m === mi; }).map(function (h) {
			var pts = [], b;
			if (cumulative) {
				pts.push({ x: h.e[0], y: 0 });
				for (b = 0; b < h.c.length; b++) pts.push({ x: h.e[b + 1], y: h.p[b] });
			} else {
				for (b = 0; b < h.c.length; b++) pts.push({ x: h.e[b], y: h.c[b] });
				pts.push({ x: h.e[h.c.length], y: h.c[h.c.length - 1] });
			}
			return {
				label: label(h.f, h.s) + ' (' + h.n + ')', data: pts,
				borderColor: colour(h.s, h.f), backgroundColor: colour(h.s, h.f),
				borderDash: h.f ? [6, 3 * h.f] : [], stepped: cumulative ? false : 'after',
				pointRadius: 0, borderWidth: 1.5, showLine: true,
				hidden: h.s === 'all' && states.length > 1,
			};
		});
	}

	function allPositive(sets, axis) {
		return sets.every(function (s) {
			return s.data.every(function (p) { return p[axis || 'x'] > 0; });
		});
	}

	function draw() {
	D.metrics.forEach(function (m, mi) {
		var sec = el('div', 'metric', plots);
		el('h3', null, sec, m.name);
		var row = el('div', 'row', sec);
		D.xmetrics.forEach(function (xm, xi) {
			var sets = scatterSets(mi, xi);
			if (!sets.length) return;
			// Log y where it can be: a linear axis squashes 99.9% of the
			// points under a few outliers (toggle off to see them linear).
			var ytype = allPositive(sets, 'y') ? 'logarithmic' : 'linear';
			makeChart(row, m.name + ' vs ' + xm.name, 'scatter', sets,
				{ type: 'linear', title: { display: true, text: axisTitle(xm) } },
				{ type: ytype, title: { display: true, text: axisTitle(m) } }, xm, m, true);
		});
		var hs = histSets(mi, false), cs = histSets(mi, true);
		var xtype = m.time && allPositive(hs) ? 'logarithmic' : 'linear';
		var count = { name: 'count', unit: '' }, share = { name: 'share', unit: '%' };
		makeChart(row, m.name + ' histogram', 'scatter', hs,
			{ type: xtype, title: { display: true, text: axisTitle(m) } },
			{ type: 'linear', title: { display: true, text: 'datapoints per bucket' } },
			m, count, true);
		makeChart(row, m.name + ' cumulative histogram', 'scatter', cs,
			{ type: xtype, title: { display: true, text: axisTitle(m) } },
			{ type: 'linear', min: 0, max: 100, title: { display: true, text: '% of datapoints <= x' } },
			m, share, true);
	});
	}

	// What each chart drew: its points, and the pixels of its area painted
	// in a dataset's colour (saturated; grid and axes are grey).
	function check(c) {
		var ch = c.chart, a = ch.chartArea, ctx = ch.canvas.getContext('2d');
		var r = window.devicePixelRatio || 1, coloured = 0, points = 0;
		ch.data.datasets.forEach(function (d) { points += d.data.length; });
		var img = ctx.getImageData(Math.floor(a.left * r), Math.floor(a.top * r),
			Math.max(1, Math.floor((a.right - a.left) * r)),
			Math.max(1, Math.floor((a.bottom - a.top) * r))).data;
		for (var i = 0; i < img.length; i += 4) {
			var hi = Math.max(img[i], img[i + 1], img[i + 2]);
			var lo = Math.min(img[i], img[i + 1], img[i + 2]);
			if (img[i + 3] > 128 && hi - lo > 60) coloured++;
		}
		self.charts.push({ title: c.title, datasets: ch.data.datasets.length,
			points: points, coloured: coloured, x: [ch.scales.x.min, ch.scales.x.max],
			y: [ch.scales.y.min, ch.scales.y.max], ytype: ch.options.scales.y.type,
			colours: ch.data.datasets.map(function (d) { return d.borderColor; }) });
	}

	try {
		draw();
		charts.forEach(check);
	} catch (e) {
		self.errors.push(String(e && e.stack || e));
	}

	document.getElementById('wult-selftest').textContent = JSON.stringify(self);
})();
