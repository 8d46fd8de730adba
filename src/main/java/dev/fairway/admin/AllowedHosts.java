package dev.fairway.admin;

import dev.fairway.config.HostName;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which {@code Host} header values the admin listener answers. A page on {@code evil.example}
 * whose DNS name is re-bound to 127.0.0.1 reaches the listener, but its browser still sends
 * {@code Host: evil.example}, which is refused (DNS rebinding).
 *
 * <p>Example: {@code AllowedHosts.of("127.0.0.1", List.of("Admin.Example"))} allows
 * {@code 127.0.0.1:9090}, {@code 10.0.0.7}, {@code [::1]:9090}, {@code LOCALHOST} and
 * {@code admin.example:9090}; it refuses {@code evil.example}, {@code 127.0.0.1.evil.example},
 * {@code a@127.0.0.1}, {@code localhost.} and {@code ""}. Any IP literal is allowed: a browser sends
 * one only for a page whose own origin is that address, so no name was re-bound. The port is not
 * compared, only checked to be a number up to 65535: a re-bound page reaches the listener on its
 * port anyway, and port forwards ({@code ssh -L}, {@code docker -p}) change it legitimately.
 *
 * @param names lower-case host names allowed besides IP literals
 */
record AllowedHosts(Set<String> names) {
  private static final Pattern IPV4 = Pattern.compile("([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})");
  private static final Pattern HEX_GROUP = Pattern.compile("[0-9A-Fa-f]{1,4}");
  private static final Pattern PORT = Pattern.compile(":[0-9]{1,5}");
  private static final int MAX_PORT = 65535;
  private static final int IPV6_GROUPS = 8;

  AllowedHosts {
    names = Set.copyOf(names);
  }

  /**
   * {@code localhost}, {@code adminHost} when it is a name, and {@code allowedHosts}, in lower case.
   *
   * @param adminHost    {@code admin.host}: an address to bind or a name
   * @param allowedHosts {@code admin.allowedHosts}
   */
  static AllowedHosts of(String adminHost, Collection<String> allowedHosts) {
    Set<String> names = new HashSet<>();
    names.add("localhost");
    if (HostName.isValid(adminHost) && !isIpv4(adminHost)) {
      names.add(adminHost.toLowerCase(Locale.ROOT));
    }
    for (String name : allowedHosts) {
      names.add(name.toLowerCase(Locale.ROOT));
    }
    return new AllowedHosts(names);
  }

  /** Why a request with these {@code Host} field values is refused, or empty if it is served. */
  Optional<String> refusal(List<String> hostFields) {
    if (hostFields.isEmpty()) {
      return Optional.of("missing Host header");
    }
    if (hostFields.size() > 1) {
      return Optional.of("more than one Host header");
    }
    if (!allows(hostFields.get(0))) {
      return Optional.of("Host names no address of this admin listener: use an IP address or localhost, "
          + "or add the name to admin.allowedHosts");
    }
    return Optional.empty();
  }

  /** Whether {@code host} (a {@code Host} value: name or IP literal, optional port) is served. */
  boolean allows(String host) {
    if (host == null) {
      return false;
    }
    if (host.startsWith("[")) {
      int end = host.indexOf(']');
      return end > 0 && isIpv6(host.substring(1, end)) && isPortOrEmpty(host.substring(end + 1));
    }
    int colon = host.indexOf(':');
    String name = colon < 0 ? host : host.substring(0, colon);
    if (!isPortOrEmpty(colon < 0 ? "" : host.substring(colon))) {
      return false;
    }
    return isIpv4(name) || (HostName.isValid(name) && names.contains(name.toLowerCase(Locale.ROOT)));
  }

  private static boolean isPortOrEmpty(String text) {
    return text.isEmpty() || (PORT.matcher(text).matches() && Integer.parseInt(text.substring(1)) <= MAX_PORT);
  }

  private static boolean isIpv4(String text) {
    Matcher m = IPV4.matcher(text);
    if (!m.matches()) {
      return false;
    }
    for (int i = 1; i <= 4; i++) {
      if (Integer.parseInt(m.group(i)) > 255) {
        return false;
      }
    }
    return true;
  }

  /** RFC 4291 §2.2 text forms: eight groups, or fewer around one {@code ::}, maybe ending in IPv4. */
  private static boolean isIpv6(String text) {
    int gap = text.indexOf("::");
    if (gap < 0) {
      return groups(text, true) == IPV6_GROUPS;
    }
    if (text.indexOf("::", gap + 1) >= 0) {
      return false;
    }
    int head = groups(text.substring(0, gap), false);
    int tail = groups(text.substring(gap + 2), true);
    return head >= 0 && tail >= 0 && head + tail < IPV6_GROUPS;
  }

  /** How many 16-bit groups {@code part} ("1:ab", "" or, last, "ff:1.2.3.4") holds, or -1 if malformed. */
  private static int groups(String part, boolean last) {
    if (part.isEmpty()) {
      return 0;
    }
    String[] fields = part.split(":", -1);
    int count = 0;
    for (int i = 0; i < fields.length; i++) {
      if (HEX_GROUP.matcher(fields[i]).matches()) {
        count++;
      } else if (last && i == fields.length - 1 && isIpv4(fields[i])) {
        count += 2;
      } else {
        return -1;
      }
    }
    return count;
  }
}
