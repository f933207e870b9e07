include:
  - ..sibling
  - ...beyond
deep_state:
  test.nop
