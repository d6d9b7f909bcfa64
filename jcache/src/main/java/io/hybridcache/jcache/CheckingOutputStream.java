package io.hybridcache.jcache;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.lang.reflect.Array;

/**
 * An object stream that checks, while it writes, what the {@link SerialFilter} will check when the bytes are
 * read: each class descriptor written ({@link #annotateClass}, once per class in a stream) against the
 * filter's verdict for the class (cached per class, {@link SerialFilter#refusalOf}); each array's length
 * ({@code maxarray}); the number of objects ({@code maxrefs}) and the graph depth ({@code maxdepth}) at each
 * object other than a string, where reading checks them. A refusal throws {@link Unstorable}. Not thread-safe:
 * one stream per encode.
 *
 * <p>Design note: reading counts every reference, back references and nulls too, so the object count here is
 * a lower bound and a graph can still pass here and be refused when read (then it is a counted miss). The
 * depth is the number of {@code writeObject0} frames on the stack, measured only when the bound "last measured
 * depth + objects written since" (the depth grows by at most one per object) is over {@code maxdepth}.
 */
class CheckingOutputStream extends ObjectOutputStream {
  private static final StackWalker STACK = StackWalker.getInstance();
  private final SerialFilter filter;
  private final String root;
  private final long maxDepth;
  private final long maxRefs;
  private long objects;
  private long depthBound;

  CheckingOutputStream(OutputStream out, SerialFilter filter, Class<?> root) throws IOException {
    super(out);
    this.filter = filter;
    this.root = root.getName();
    this.maxDepth = filter.limit("maxdepth");
    this.maxRefs = filter.limit("maxrefs");
    enableReplaceObject(true);
  }

  @Override
  protected void annotateClass(Class<?> cl) {
    refuseIf(filter.refusalOf(cl));
  }

  /** Refuses {@code cl} (null: nothing to check) as {@link #annotateClass} does, before its descriptor is written. */
  protected final void check(Class<?> cl) {
    if (cl != null) {
      refuseIf(filter.refusalOf(cl));
    }
  }

  @Override
  protected void annotateProxyClass(Class<?> cl) {
    refuseIf(filter.refusalOf(cl));
    for (Class<?> i : cl.getInterfaces()) {
      refuseIf(filter.refusalOf(i));
    }
  }

  @Override
  protected Object replaceObject(Object obj) {
    objects++;
    depthBound++;
    if (obj instanceof String) {
      return obj; // read without a filter check
    }
    Class<?> c = obj.getClass();
    if (c.isArray()) {
      refuseIf(filter.refusal(c, Array.getLength(obj), 1, 1, 0));
    }
    if (objects > maxRefs) {
      refuseIf(filter.refusal(c, -1, 1, objects, 0));
    }
    if (depthBound > maxDepth) {
      depthBound = depth();
      if (depthBound > maxDepth) {
        refuseIf(filter.refusal(c, -1, depthBound, 1, 0));
      }
    }
    return obj;
  }

  private void refuseIf(String refusal) {
    if (refusal != null && !writingFailure()) {
      throw new Unstorable(root, refusal);
    }
  }

  /**
   * True while the stream writes the exception that failed it (ObjectOutputStream does that for an IOException,
   * a NotSerializableException say): that is not stored, and the caller is to hear of the exception.
   */
  private static boolean writingFailure() {
    return STACK.walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("writeFatalException")
        && f.getClassName().equals("java.io.ObjectOutputStream")));
  }

  /** How deep the object being written is: the number of nested writeObject0 calls. */
  private static long depth() {
    return STACK.walk(frames -> frames.filter(f -> f.getMethodName().equals("writeObject0")
        && f.getClassName().equals("java.io.ObjectOutputStream")).count());
  }
}
