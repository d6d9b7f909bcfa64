package io.hybridcache.core.api;

import java.util.List;

/**
 * An immutable snapshot of lifetime placement, taken by {@link HybridCache#placement()}: which stream
 * each lifetime class's segments go to and how many bytes each stream received.
 *
 * @param mapper the configured stream mapper (single, static, dsm, filestream)
 * @param streams streams the mapper uses at most
 * @param epochs hotness epochs completed since open
 * @param remaps epochs in which at least one class changed stream
 * @param hintsSet write-life hints the device accepted (one per segment opened, except with single)
 * @param hintsRefused hints the device could not pass on (unsupported here: logged once by the device)
 * @param classes every class that wrote since open, by id
 * @param bytesPerStream device bytes written per stream since open (index = stream)
 */
public record PlacementStats(String mapper, int streams, long epochs, long remaps, long hintsSet, long hintsRefused,
    List<ClassPlacement> classes, List<Long> bytesPerStream) {

  public PlacementStats {
    classes = List.copyOf(classes);
    bytesPerStream = List.copyOf(bytesPerStream);
  }

  /** For caches without a flash tier placement (implementations of the interface outside the engine). */
  public static final PlacementStats NONE = new PlacementStats("none", 0, 0, 0, 0, 0, List.of(), List.of());

  /**
   * One lifetime class.
   *
   * @param stream the stream a new segment of the class gets now (-1 before its first segment)
   * @param bytesWritten device bytes written for the class since open
   * @param hotnessYoung DSM hotness of its young segments at the last epoch (NaN if none)
   * @param hotnessOld the same for old segments
   * @param invalidationPerByte bytes invalidated per byte on flash during the last epoch (FileStream's USM)
   */
  public record ClassPlacement(int id, String name, int stream, long bytesWritten, double hotnessYoung,
      double hotnessOld, double invalidationPerByte) {}
}
