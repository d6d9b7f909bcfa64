package io.hybridcache.core.engine;

/**
 * Linux write-life hints ({@code fcntl(F_SET_RW_HINT)}, values RWH_WRITE_LIFE_*), and how a stream
 * becomes one. Stateless and thread-safe.
 *
 * <p>The kernel offers four lifetimes (SHORT..EXTREME) besides NOT_SET and NONE, fewer than the
 * default 8 streams: streams are folded onto them in order, the hottest streams (highest ids) to
 * SHORT, the coldest (0) to EXTREME. The write trace keeps the exact stream; the hint is what a
 * stream-capable device could be told through the file system.
 */
final class WriteLifeHints {
  public static final int NOT_SET = 0;
  public static final int NONE = 1;
  public static final int SHORT = 2;
  public static final int MEDIUM = 3;
  public static final int LONG = 4;
  public static final int EXTREME = 5;

  private WriteLifeHints() {}

  /** The hint of {@code stream} in [0, streams): SHORT for the hottest .. EXTREME for the coldest. */
  public static int forStream(int stream, int streams) {
    if (streams < 1 || stream < 0 || stream >= streams) {
      throw new IllegalArgumentException("stream " + stream + " outside [0, " + streams + ")");
    }
    return SHORT + (int) ((long) (streams - 1 - stream) * 4 / streams);
  }
}
