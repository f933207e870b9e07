{% set state = 'opcache' %}
{% include "php/installed.jinja" %}
