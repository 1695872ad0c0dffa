module example.com/primes

go 1.19
