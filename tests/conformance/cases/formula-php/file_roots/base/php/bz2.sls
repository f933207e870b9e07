{% set state = 'bz2' %}
{% include "php/installed.jinja" %}
