// SPDX-License-Identifier: GPL-2.0
//
// Two hot JavaScript functions for the symbols test, run under
// `node --perf-basic-prof`: V8 compiles them and names their code in
// /tmp/perf-PID.map. Runs for argv[2] seconds (default 3).

'use strict';

function fibHot(n) {
	return n < 2 ? n : fibHot(n - 1) + fibHot(n - 2);
}

function sieveCold(n) {
	const composite = new Uint8Array(n + 1);
	let count = 0;

	for (let i = 2; i <= n; i++) {
		if (composite[i])
			continue;
		count++;
		for (let j = i * i; j <= n; j += i)
			composite[j] = 1;
	}
	return count;
}

const end = Date.now() + 1000 * Number(process.argv[2] || 3);
let sink = 0;

while (Date.now() < end) {
	sink += fibHot(20);
	sink += sieveCold(30000);
}
if (sink === 42)
	console.log(sink);
