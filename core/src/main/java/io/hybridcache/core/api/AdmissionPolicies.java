package io.hybridcache.core.api;

/** Parses admission policy specs used in settings files and on command lines. */
public final class AdmissionPolicies {
  private AdmissionPolicies() {}

  /**
   * {@code accept-all}, {@code random:P} (admit with probability P), {@code write-rate:BYTES_PER_SECOND},
   * {@code second-hit:SLOTS}.
   *
   * @throws IllegalArgumentException naming {@code field} and the bad spec
   */
  public static AdmissionPolicy parse(String field, String spec) {
    String s = spec == null ? "" : spec.trim();
    int colon = s.indexOf(':');
    String kind = colon < 0 ? s : s.substring(0, colon);
    String arg = colon < 0 ? null : s.substring(colon + 1);
    try {
      switch (kind) {
        case "accept-all":
          return new AcceptAll();
        case "random":
          return new RandomReject(Double.parseDouble(required(arg)));
        case "write-rate":
          return new WriteRateBudget(Long.parseLong(required(arg)));
        case "second-hit":
          return new SecondHit(arg == null ? 1 << 16 : Integer.parseInt(arg));
        default:
          throw new IllegalArgumentException("unknown kind");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          field + ": bad admission policy '" + spec + "' (" + e.getMessage()
              + "); use accept-all, random:P, write-rate:BYTES_PER_SECOND or second-hit:SLOTS", e);
    }
  }

  private static String required(String arg) {
    if (arg == null || arg.isEmpty()) {
      throw new IllegalArgumentException("missing parameter");
    }
    return arg;
  }
}
