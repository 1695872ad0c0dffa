module gohttp2

go 1.19
