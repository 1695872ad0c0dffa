// SPDX-License-Identifier: GPL-2.0
/*
 * A C++ program whose hot function is a template instance, for the symbols
 * test: its symbol is mangled (_Z14accumulate_hotIdET_PKS0_m), its name
 * "double accumulate_hot<double>(double const*, unsigned long)". Runs for
 * argv[1] seconds (default 2).
 */

#include <chrono>
#include <cstdlib>
#include <vector>

namespace {
volatile double sink;
}

template <typename T>
__attribute__((noinline)) T accumulate_hot(const T *v, std::size_t n)
{
	T sum = 0;

	for (std::size_t i = 0; i < n; i++)
		sum = sum * T(0.5) + v[i];
	return sum;
}

int main(int argc, char **argv)
{
	using clock = std::chrono::steady_clock;
	auto end = clock::now() + std::chrono::duration<double>(argc > 1 ? std::atof(argv[1]) : 2);
	std::vector<double> v(4096, 1.5);

	while (clock::now() < end)
		sink = accumulate_hot(v.data(), v.size());
	return 0;
}
