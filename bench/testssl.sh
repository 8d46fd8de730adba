#!/usr/bin/env bash
# testssl.sh against Fairway's TLS listener on loopback, with a pass/fail summary (issue 22).
#
#   bench/testssl.sh                                        # default provider (OpenSSL when it loads)
#   JAVA_OPTS=-Dfairway.tls.provider=jdk bench/testssl.sh   # the JDK's provider
#
# What it does, all on 127.0.0.1 and under a mktemp directory:
#   1. builds target/fairway.jar if it is missing (or takes JAR);
#   2. makes a self-signed EC P-256 certificate for localhost / 127.0.0.1 with openssl;
#   3. starts Fairway with cleartext off, proxy.tls on TLS_PORT with that certificate (everything
#      else default: TLS 1.3 and 1.2, HTTP/2's cipher suites, ALPN h2 and http/1.1) in front of its
#      embedded demo backends;
#   4. runs testssl's default checks (protocols, cipher categories, forward secrecy, server
#      defaults and preferences, HTTP headers, vulnerabilities, client simulation) against
#      localhost:TLS_PORT pinned to 127.0.0.1, bounded by TESTSSL_TIMEOUT;
#   5. saves testssl's log and JSON under OUT and prints a PASS/FAIL line per requirement, then
#      the other findings of severity LOW or above. Exits 1 when a requirement fails.
# Every process it starts is stopped on exit (trap).
#
# Environment (defaults in brackets):
#   JAR [target/fairway.jar]  JAVA_OPTS [-Xmx256m]  TESTSSL_TIMEOUT [900 s]
#   OUT [target/testssl]  TLS_PORT [18543]  ADMIN_PORT [18194]  DEMO1_PORT [19031]  DEMO2_PORT [19032]
set -euo pipefail

JAVA_OPTS=${JAVA_OPTS:-"-Xmx256m"}
TESTSSL_TIMEOUT=${TESTSSL_TIMEOUT:-900}
TLS_PORT=${TLS_PORT:-18543}
ADMIN_PORT=${ADMIN_PORT:-18194}
DEMO1_PORT=${DEMO1_PORT:-19031}
DEMO2_PORT=${DEMO2_PORT:-19032}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/target/testssl}
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"

for tool in testssl java openssl curl jq timeout mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool' (testssl: apt-get install -y testssl.sh)"
done
ports_free "$TLS_PORT" "$ADMIN_PORT" "$DEMO1_PORT" "$DEMO2_PORT"
resolve_jar

WORK=$(mktemp -d /tmp/fairway-testssl.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

self_signed_cert "$WORK" DNS:localhost,IP:127.0.0.1 localhost

cat > "$WORK/fairway.json" <<JSON
{
  "proxy": { "host": "$HOST", "port": -1,
             "tls": { "port": $TLS_PORT,
                      "certificates": [ { "certPath": "$WORK/site.pem", "keyPath": "$WORK/site.key" } ] } },
  "admin": { "host": "$HOST", "port": $ADMIN_PORT, "token": "testssl-token-0123456789" },
  "services": [ {
    "name": "demo", "match": { "host": "*", "pathPrefix": "/" },
    "backends": [ { "id": "d1", "url": "http://$HOST:$DEMO1_PORT" }, { "id": "d2", "url": "http://$HOST:$DEMO2_PORT" } ]
  } ],
  "demo": { "backends": [ { "port": $DEMO1_PORT }, { "port": $DEMO2_PORT } ] }
}
JSON
# shellcheck disable=SC2086
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!)
wait_http "$TLS_PORT" / "$!" Fairway https
PROVIDER=$(grep -o "TLS provider: [A-Za-z]*" "$WORK/fairway.log" | head -1 | cut -d' ' -f3)
log "Fairway up on https://$HOST:$TLS_PORT, TLS provider $PROVIDER; testssl (at most ${TESTSSL_TIMEOUT}s)"

mkdir -p "$OUT"
STAMP=$(date -u +%Y%m%dT%H%MZ)
BASE="$OUT/testssl-${PROVIDER,,}-$STAMP"
JSONF="$BASE.json"
set +e
timeout "$TESTSSL_TIMEOUT" testssl --quiet --color 0 --warnings off --ip "$HOST" --connect-timeout 5 \
  --openssl-timeout 5 --logfile "$BASE.log" --jsonfile "$JSONF" "localhost:$TLS_PORT" > /dev/null 2>&1
rc=$?
set -e
(( rc == 124 )) && die "testssl did not finish within ${TESTSSL_TIMEOUT}s (partial output in $BASE.log)"
[[ -s $JSONF ]] || die "testssl wrote no findings (exit $rc); see $BASE.log"

# finding ID: the finding text of that id ("" when testssl did not report it)
finding() { jq -r --arg id "$1" '[.[] | select(.id == $id) | .finding] | join("; ")' "$JSONF"; }
FAILED=0
check() { # check NAME OK(0/1) DETAIL
  if [[ $2 == 1 ]]; then printf 'PASS  %-44s %s\n' "$1" "$3"; else printf 'FAIL  %-44s %s\n' "$1" "$3"; FAILED=1; fi
}
not_offered() { # not_offered ID...: every id reported and "not offered"
  local id f ok=1 detail=
  for id in "$@"; do
    f=$(finding "$id")
    [[ $f == "not offered"* ]] || ok=0
    detail+="$id: ${f:-missing}. "
  done
  echo "$ok|$detail"
}

VERSION=$(java -jar "$JAR" --version 2>/dev/null || true)
[[ -n $VERSION ]] || VERSION="$(basename "$JAR") (commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown))"
echo
echo "testssl $(testssl --version 2>/dev/null | grep -o 'testssl *[0-9][^ ]*' | head -1 | awk '{print $2}') against" \
  "Fairway $VERSION, TLS provider $PROVIDER, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "saved: $BASE.log, $JSONF"
echo
IFS='|' read -r ok detail < <(not_offered SSLv2 SSLv3 TLS1 TLS1_1)
check "no SSLv2, SSLv3, TLS 1.0, TLS 1.1" "$ok" "$detail"
t12=$(finding TLS1_2); t13=$(finding TLS1_3)
check "TLS 1.2 and TLS 1.3 offered" "$([[ $t12 == offered* && $t13 == offered* ]] && echo 1 || echo 0)" \
  "TLS1_2: $t12. TLS1_3: $t13."
IFS='|' read -r ok detail < <(not_offered cipherlist_NULL cipherlist_aNULL cipherlist_EXPORT cipherlist_LOW \
  cipherlist_3DES_IDEA cipherlist_AVERAGE)
check "no NULL, aNULL, EXPORT, LOW, 3DES, obsolete CBC" "$ok" "$detail"
rc4=$(finding RC4)
check "no RC4" "$([[ $rc4 == *"not vulnerable"* || $rc4 == *"no RC4"* ]] && echo 1 || echo 0)" "RC4: $rc4"
# forward secrecy: testssl's verdict, and every suite the server offers has an (EC)DHE key exchange
# (TLS 1.3's always do; TLS 1.2's are the cipher order's ECDHE-/DHE- names)
fs=$(jq -r '[.[] | select(.id == "FS" or .id == "PFS") | .finding] | join("; ")' "$JSONF")
order12=$(finding cipherorder_TLSv1_2)
nonfs=$(tr ' ' '\n' <<< "$order12" | grep -E '^[A-Z0-9]+(-[A-Z0-9]+)+$' | grep -Ev '^(ECDHE|DHE)-' | tr '\n' ' ' || true)
check "forward secrecy for every offered suite" "$([[ $fs == offered* && -z $nonfs ]] && echo 1 || echo 0)" \
  "FS: $fs. TLS 1.2 order: $order12.${nonfs:+ without FS: $nonfs}"
VULNS='["heartbleed","CCS","ticketbleed","ROBOT","secure_renego","secure_client_renego","CRIME_TLS","BREACH",
  "POODLE_SSL","fallback_SCSV","SWEET32","FREAK","DROWN","LOGJAM","LOGJAM-common_primes","BEAST","LUCKY13","RC4"]'
bad=$(jq -r --argjson v "$VULNS" '.[] | select(.id as $i | $v | index($i)) | select(.severity | test("MEDIUM|HIGH|CRITICAL"))
  | "\(.id) \(.severity): \(.finding)"' "$JSONF")
nvuln=$(jq --argjson v "$VULNS" '[.[] | select(.id as $i | $v | index($i))] | length' "$JSONF")
check "vulnerabilities: none MEDIUM or worse" "$([[ -z $bad ]] && echo 1 || echo 0)" \
  "$nvuln checks reported${bad:+; }${bad//$'\n'/; }"
echo
echo "Other findings of severity LOW or above, and testssl's warnings:"
jq -r --argjson v "$VULNS" '.[] | select(.severity | test("LOW|MEDIUM|HIGH|CRITICAL|WARN"))
  | select(.id as $i | ($v | index($i)) | not)
  | select(.id | test("^(SSLv2|SSLv3|TLS1|TLS1_1|cipherlist_.*)$") | not)
  | "  \(.severity)\t\(.id): \(.finding)"' "$JSONF"
echo
if (( FAILED )); then echo "RESULT: FAIL"; exit 1; fi
echo "RESULT: PASS"
