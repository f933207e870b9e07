dictform:
  from: dict
