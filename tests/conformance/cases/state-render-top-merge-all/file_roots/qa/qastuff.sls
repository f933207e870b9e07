qa_stuff: test.nop
