qa_web: test.nop
