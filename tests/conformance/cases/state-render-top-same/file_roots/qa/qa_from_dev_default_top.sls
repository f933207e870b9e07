qa_default: test.nop
