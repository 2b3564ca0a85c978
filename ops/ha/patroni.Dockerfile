# A Patroni node: Debian's patroni and PostgreSQL 15 packages, the same as the drill runs
# (docs/operations/high-availability.md). Built by ops/ha/docker-compose.yml.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends patroni postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /etc/patroni /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 700 /var/lib/postgresql/data
COPY patroni-compose.yml /etc/patroni/patroni.yml
COPY post-bootstrap.sh /etc/patroni/post-bootstrap.sh
USER postgres
EXPOSE 5432 8008
CMD ["patroni", "/etc/patroni/patroni.yml"]
