web_back:
  test.nop: []
