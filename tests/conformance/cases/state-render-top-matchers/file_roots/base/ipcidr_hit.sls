ipcidr_hit: test.nop
