package io.hybridcache.core.api;

/**
 * Chooses which sealed segment reclaim empties next. Implementations are stateless and thread-safe;
 * the reclaimer calls {@link #score} for every candidate and takes the highest.
 */
public interface VictimPolicy {

  /** Higher is a better victim. */
  double score(SegmentInfo segment, long nowSequence);

  String name();

  /** What a policy may look at: a sealed segment's figures. */
  interface SegmentInfo {
    /** Bytes appended to the segment (the denominator of its garbage ratio). */
    long writtenBytes();

    /** Bytes of entries that were updated, removed or evicted since written. */
    long garbageBytes();

    /** Sequence number when the segment was sealed (its age). */
    long sealedSequence();

    /** Segment id: lower is older. */
    long id();

    default double garbageRatio() {
      long w = writtenBytes();
      return w == 0 ? 1.0 : Math.min(1.0, (double) garbageBytes() / w);
    }
  }

  /** The paper's rule: the segment with the largest garbage ratio yields the most space. */
  static VictimPolicy greedy() {
    return new VictimPolicy() {
      @Override
      public double score(SegmentInfo s, long now) {
        return s.garbageRatio();
      }

      @Override
      public String name() {
        return "greedy";
      }
    };
  }

  /** LFS cost-benefit: (1 - u) * age / (1 + u), u the live ratio; old cold segments go before young. */
  static VictimPolicy costBenefit() {
    return new VictimPolicy() {
      @Override
      public double score(SegmentInfo s, long now) {
        double u = 1.0 - s.garbageRatio();
        double age = Math.max(1, now - s.sealedSequence());
        return (1.0 - u) * age / (1.0 + u);
      }

      @Override
      public String name() {
        return "cost-benefit";
      }
    };
  }

  /** Oldest segment first, whatever its garbage (a log with eviction, like CacheLib's FIFO regions). */
  static VictimPolicy fifo() {
    return new VictimPolicy() {
      @Override
      public double score(SegmentInfo s, long now) {
        return -s.id();
      }

      @Override
      public String name() {
        return "fifo";
      }
    };
  }

  /** Parses greedy, cost-benefit or fifo; the error names {@code field}. */
  static VictimPolicy parse(String field, String name) {
    switch (name == null ? "" : name.trim()) {
      case "greedy":
        return greedy();
      case "cost-benefit":
        return costBenefit();
      case "fifo":
        return fifo();
      default:
        throw new IllegalArgumentException(
            field + ": unknown victim policy '" + name + "'; use greedy, cost-benefit or fifo");
    }
  }
}
