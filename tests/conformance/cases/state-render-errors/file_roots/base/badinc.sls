include:
  - does.not.exist
  - nowhere: good
  - ...toofar
  - conflict_a
  - conflict_b
badinc_state:
  test.nop
