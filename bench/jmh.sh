#!/usr/bin/env bash
# Runs the JMH benchmarks of the test classes (src/test/java/dev/fairway/jmh, and HeadRewriteBenchmark
# beside the package-private types it measures in dev.fairway.proxy.wire).
# Usage: bench/jmh.sh [JMH args...]   e.g. bench/jmh.sh SlotTable -t 2 -f 1 -wi 3 -i 5
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B test-compile
cp_file=target/jmh-classpath.txt
mvn -q -B dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >/dev/null
exec java -cp "target/test-classes:target/classes:$(cat "$cp_file")" org.openjdk.jmh.Main "$@"
