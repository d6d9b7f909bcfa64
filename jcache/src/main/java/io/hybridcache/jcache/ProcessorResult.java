package io.hybridcache.jcache;

import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;

/** One key's outcome of {@code invokeAll}: a result or the exception the processor ended with. Immutable. */
final class ProcessorResult<T> implements EntryProcessorResult<T> {
  private final T result;
  private final RuntimeException failure;

  ProcessorResult(T result, RuntimeException failure) {
    this.result = result;
    this.failure = failure;
  }

  @Override
  public T get() {
    if (failure != null) {
      throw failure instanceof EntryProcessorException ? failure : new EntryProcessorException(failure);
    }
    return result;
  }
}
