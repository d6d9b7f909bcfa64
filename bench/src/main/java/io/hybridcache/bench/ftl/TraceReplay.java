package io.hybridcache.bench.ftl;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays a cache's device write trace ({@code io.hybridcache.core.engine.WriteTrace}) through the
 * {@link Ftl} and reports device write amplification, for any of the stream mappers the trace
 * recorded. Immutable once read; {@link #replay} is thread-safe (each call has its own FTL).
 *
 * <p>Device: the cache's footprint (every slot it wrote) fills {@code utilization} of the device's
 * user capacity; the physical capacity is that user capacity times (1 + over-provisioning). With
 * over-provisioning 0, physical / user pages = 1 / utilization, the {@code a} of the closed form in
 * {@link ClosedForm}. A real drive hides extra spare capacity beyond what it exports: that is the
 * over-provisioning setting.
 *
 * <p>Streams: {@code single} puts everything in stream 0; {@code recorded} uses the stream on each
 * write line (the cache's configured mapper); a mapper label (static, dsm, filestream) uses the
 * stream that mapper chose for the segment, from the trace's open lines. {@code oracle:N} is no mapper
 * but a bound: it knows when every segment will die (its slot's next trim or reuse) and puts segments
 * of similar lifetime together in N streams (equal-count lifetime quantiles); plain {@code oracle}
 * uses as many streams as the static mapper did (one per class, at least 2), since every open stream
 * holds a partly written block.
 *
 * <p>Sessions: each open of the cache starts with the header line; WA is reported over the whole
 * trace and over the last session (YCSB's run phase after its load phase).
 */
public final class TraceReplay {
  public static final int PAGE = 4096;

  private static final byte OPEN = 0;
  private static final byte WRITE = 1;
  private static final byte TRIM = 2;
  private static final byte SESSION = 3;

  private final byte[] op;
  private final int[] page;   // first page (W, T) or slot (O)
  private final int[] count;  // pages (W, T)
  private final int[] stream; // W: recorded stream; O: index into openStreams
  private final int events;
  private final List<int[]> openStreams; // per O: stream per mapper label index
  private final List<String> labels;
  private final int footprintPages;
  private final long slotBytes;
  private final long writtenBytes;
  private final long trimmedBytes;
  private final int sessions;

  /** Where a replay runs. */
  public record Device(int pagesPerBlock, double utilization, double overProvisioning, Ftl.Victim victim,
      boolean trims) {
    public Device {
      if (!(utilization > 0 && utilization < 1)) {
        throw new IllegalArgumentException("utilization must be in (0, 1): " + utilization);
      }
      if (overProvisioning < 0) {
        throw new IllegalArgumentException("over-provisioning must be >= 0: " + overProvisioning);
      }
    }
  }

  /**
   * One replay's figures.
   *
   * @param deviceWaf device write amplification over the last session (the whole trace if one)
   * @param deviceWafAll over the whole trace
   */
  public record Result(String mapper, Device device, int blocks, long hostPages, long gcPages, double deviceWaf,
      double deviceWafAll, int streamsUsed) {}

  private TraceReplay(Builder b) {
    this.op = Arrays.copyOf(b.op, b.n);
    this.page = Arrays.copyOf(b.page, b.n);
    this.count = Arrays.copyOf(b.count, b.n);
    this.stream = Arrays.copyOf(b.stream, b.n);
    this.events = b.n;
    this.openStreams = b.openStreams;
    this.labels = b.labels;
    this.footprintPages = b.footprintPages;
    this.slotBytes = b.slotBytes;
    this.writtenBytes = b.written;
    this.trimmedBytes = b.trimmed;
    this.sessions = b.sessions;
  }

  public int footprintPages() { return footprintPages; }
  /** Bytes of one slot (segment), from the open lines; 0 if the trace has none. */
  public long slotBytes() { return slotBytes; }
  public long writtenBytes() { return writtenBytes; }
  public long trimmedBytes() { return trimmedBytes; }
  public int sessions() { return sessions; }

  /** Mapper labels the trace's open lines carry (e.g. single, static, dsm, filestream). */
  public List<String> mappers() {
    return labels;
  }

  /** Reads a trace file. */
  public static TraceReplay read(Path file) throws IOException {
    Builder b = new Builder();
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
      String line;
      int no = 0;
      while ((line = r.readLine()) != null) {
        no++;
        if (line.isEmpty()) {
          continue;
        }
        try {
          b.line(line);
        } catch (RuntimeException e) {
          throw new IOException(file + ":" + no + ": bad trace line '" + line + "': " + e.getMessage(), e);
        }
      }
    }
    return new TraceReplay(b);
  }

  /** Replays with the streams of {@code mapper} (single, recorded, or a label of {@link #mappers()}). */
  public Result replay(String mapper, Device d) {
    int label = labels.indexOf(mapper);
    boolean single = mapper.equals("single");
    boolean recorded = mapper.equals("recorded");
    int[] oracle = mapper.equals("oracle") ? oracleStreams(Math.max(2, staticStreams()))
        : mapper.startsWith("oracle:") ? oracleStreams(Integer.parseInt(mapper.substring(7))) : null;
    if (label < 0 && !single && !recorded && oracle == null) {
      throw new IllegalArgumentException("the trace has no streams for mapper '" + mapper + "' (it has "
          + labels + ", single, recorded, oracle)");
    }
    long user = Math.round(Math.ceil(footprintPages / d.utilization()));
    long physical = Math.round(Math.ceil(user * (1 + d.overProvisioning())));
    int blocks = (int) Math.max(8, (physical + d.pagesPerBlock() - 1) / d.pagesPerBlock());
    Ftl ftl = new Ftl(d.pagesPerBlock(), blocks, Math.max(1, footprintPages), d.victim());
    int slots = (int) Math.max(1, (long) footprintPages * PAGE / Math.max(1, slotBytes) + 1);
    int[] slotStream = new int[slots];
    int maxStream = 0;
    long hostAtLast = 0;
    long gcAtLast = 0;
    int session = 0;
    for (int i = 0; i < events; i++) {
      switch (op[i]) {
        case SESSION -> {
          session++;
          if (session == sessions) {
            hostAtLast = ftl.hostPages();
            gcAtLast = ftl.gcPages();
          }
        }
        case OPEN -> {
          int[] chosen = openStreams.get(stream[i]);
          slotStream[page[i]] = oracle != null ? oracle[i]
              : single || recorded || label >= chosen.length ? 0 : chosen[label];
        }
        case WRITE -> {
          int s = single ? 0 : recorded ? stream[i]
              : slotBytes == 0 ? 0 : slotStream[(int) ((long) page[i] * PAGE / slotBytes)];
          maxStream = Math.max(maxStream, s);
          for (int p = 0; p < count[i]; p++) {
            ftl.write(page[i] + p, s);
          }
        }
        case TRIM -> {
          if (d.trims()) {
            for (int p = 0; p < count[i]; p++) {
              ftl.trim(page[i] + p);
            }
          }
        }
        default -> throw new IllegalStateException();
      }
    }
    long host = ftl.hostPages() - hostAtLast;
    long gc = ftl.gcPages() - gcAtLast;
    double last = host == 0 ? Double.NaN : (double) (host + gc) / host;
    return new Result(mapper, d, blocks, ftl.hostPages(), ftl.gcPages(), last, ftl.writeAmplification(),
        maxStream + 1);
  }

  /**
   * Per open event: the oracle's stream, the lifetime quantile of its segment (host pages written
   * between the open and the slot's next trim or open; segments alive at the end count as longest).
   */
  private int[] oracleStreams(int streams) {
    if (streams < 1) {
      throw new IllegalArgumentException("oracle streams must be >= 1: " + streams);
    }
    int[] result = new int[events];
    long[] lifetime = new long[events];
    int slots = (int) Math.max(1, (long) footprintPages * PAGE / Math.max(1, slotBytes) + 1);
    int[] openAt = new int[slots];
    long[] openClock = new long[slots];
    java.util.Arrays.fill(openAt, -1);
    long clock = 0;
    List<Integer> opens = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      if (op[i] == WRITE) {
        clock += count[i];
      } else if (op[i] == OPEN || op[i] == TRIM) {
        int slot = op[i] == OPEN ? page[i] : (int) ((long) page[i] * PAGE / Math.max(1, slotBytes));
        if (openAt[slot] >= 0) {
          lifetime[openAt[slot]] = clock - openClock[slot];
          openAt[slot] = -1;
        }
        if (op[i] == OPEN) {
          openAt[slot] = i;
          openClock[slot] = clock;
          opens.add(i);
        }
      }
    }
    for (int slot = 0; slot < slots; slot++) {
      if (openAt[slot] >= 0) {
        lifetime[openAt[slot]] = Long.MAX_VALUE; // still alive at the end
      }
    }
    List<Integer> byLifetime = new ArrayList<>(opens);
    byLifetime.sort((a, b) -> Long.compare(lifetime[a], lifetime[b]));
    for (int k = 0; k < byLifetime.size(); k++) {
      // longest-lived in stream 0 (cold), shortest in the highest stream (hot), as the mappers number them
      result[byLifetime.get(k)] = streams - 1 - (int) ((long) k * streams / byLifetime.size());
    }
    return result;
  }

  /** Distinct streams the static mapper chose in the trace (0 if it recorded none). */
  private int staticStreams() {
    int label = labels.indexOf("static");
    if (label < 0) {
      return 0;
    }
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int[] chosen : openStreams) {
      if (label < chosen.length) {
        seen.add(chosen[label]);
      }
    }
    return seen.size();
  }

  /** Parses lines into primitive arrays. */
  private static final class Builder {
    byte[] op = new byte[1024];
    int[] page = new int[1024];
    int[] count = new int[1024];
    int[] stream = new int[1024];
    int n;
    final List<int[]> openStreams = new ArrayList<>();
    final List<String> labels = new ArrayList<>();
    final Map<String, Integer> labelIndex = new HashMap<>();
    int footprintPages;
    long slotBytes;
    long written;
    long trimmed;
    int sessions;

    void line(String line) {
      if (line.startsWith("op,")) {
        sessions++;
        add(SESSION, 0, 0, 0);
        return;
      }
      if (line.startsWith("E,")) {
        return; // hotness figures of an epoch: not a device operation
      }
      String[] f = line.split(",", -1);
      long off = Long.parseLong(f[1]);
      long len = Long.parseLong(f[2]);
      if (off % PAGE != 0 || len % PAGE != 0 || len <= 0) {
        throw new IllegalArgumentException("offset and length must be positive multiples of " + PAGE);
      }
      int first = Math.toIntExact(off / PAGE);
      int pages = Math.toIntExact(len / PAGE);
      footprintPages = Math.max(footprintPages, first + pages);
      switch (f[0]) {
        case "O" -> {
          slotBytes = len;
          int[] streams = new int[Math.max(labels.size(), 4)];
          if (f.length > 6 && !f[6].isEmpty()) {
            for (String pair : f[6].split(";")) {
              int colon = pair.indexOf(':');
              String label = pair.substring(0, colon);
              int idx = labelIndex.computeIfAbsent(label, l -> {
                labels.add(l);
                return labels.size() - 1;
              });
              if (idx >= streams.length) {
                streams = Arrays.copyOf(streams, idx + 1);
              }
              streams[idx] = Integer.parseInt(pair.substring(colon + 1));
            }
          }
          openStreams.add(streams);
          add(OPEN, first / pages, 0, openStreams.size() - 1);
        }
        case "W" -> {
          written += len;
          add(WRITE, first, pages, Integer.parseInt(f[5]));
        }
        case "T" -> {
          trimmed += len;
          add(TRIM, first, pages, -1);
        }
        default -> throw new IllegalArgumentException("unknown op " + f[0]);
      }
    }

    void add(byte o, int p, int c, int s) {
      if (n == op.length) {
        op = Arrays.copyOf(op, n * 2);
        page = Arrays.copyOf(page, n * 2);
        count = Arrays.copyOf(count, n * 2);
        stream = Arrays.copyOf(stream, n * 2);
      }
      op[n] = o;
      page[n] = p;
      count[n] = c;
      stream[n] = s;
      n++;
    }
  }
}
