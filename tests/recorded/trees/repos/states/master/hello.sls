{{ grains['outdir'] }}/hello-{{ saltenv }}.txt:
  file.managed:
    - makedirs: true
    - contents: hello from gitfs master ({{ saltenv }})
