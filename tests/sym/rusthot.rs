// SPDX-License-Identifier: GPL-2.0
//
// A Rust program for the symbols test, built twice: with Rust's legacy
// mangling (_ZN7rusthot8hot_loop17h...E) and with its v0 mangling
// (_RNvCs..._7rusthot8hot_loop); both must read rusthot::hot_loop. Runs for
// argv[1] seconds (default 2).

use std::time::{Duration, Instant};

#[inline(never)]
fn hot_loop(n: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i ^ (x >> 7));
    }
    x
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    // From the command line's length: not a constant the compiler folds.
    let n = 200_000 + std::env::args().count() as u64;
    let mut sink = 0u64;

    while Instant::now() < end {
        sink ^= hot_loop(n);
    }
    if sink == 42 {
        println!("{}", sink);
    }
}
