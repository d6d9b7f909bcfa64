package io.hybridcache.bench;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;

/**
 * Parses and formats byte sizes: {@code 4096}, {@code 16MiB}, {@code 16m}, {@code 1GiB}, {@code 512k}.
 * Suffixes are binary (k = KiB = 1024). Thread-safe: stateless.
 */
public final class Sizes {
  private static final Pattern SIZE = Pattern.compile("\\s*(\\d+)\\s*([kmgt]?)(i?b)?\\s*", Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  /** Bytes of {@code text}; throws IllegalArgumentException naming the text when it is not a size. */
  public static long parse(String text) {
    Matcher m = SIZE.matcher(text == null ? "" : text);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a size: '" + text + "' (examples: 4096, 512k, 16MiB, 1g)");
    }
    long n = Long.parseLong(m.group(1));
    int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      case "t" -> 40;
      default -> 0;
    };
    if (shift > 0 && n > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("size too large: '" + text + "'");
    }
    return n << shift;
  }

  /** {@code bytes} as a short human-readable string, e.g. {@code 16 MiB}, {@code 1.5 GiB}. */
  public static String format(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = 0;
    while (Math.abs(v) >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return (v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v))
        + " " + units[u];
  }

  /** Picocli converter for size options. */
  public static final class Converter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return parse(value);
    }
  }
}
