{{ grains['outdir'] }}/hello-{{ saltenv }}.txt:
  file.managed:
    - makedirs: true
    - contents: hello from gitfs tag v1.0 ({{ saltenv }})
