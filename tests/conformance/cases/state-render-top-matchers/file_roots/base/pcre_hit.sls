pcre_hit: test.nop
