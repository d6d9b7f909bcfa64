package io.hybridcache.jcache;

import java.io.ObjectInputFilter;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JEP 290 filter the Java-serialization codec reads through: the provider's deny-list of known gadget
 * classes ({@link #GADGETS}), then the manager's {@code serial-filter}, then the JVM-wide filter
 * ({@code jdk.serialFilter}, {@link ObjectInputFilter.Config#getSerialFilter()}), merged as
 * {@link ObjectInputFilter#merge} merges (a refusal of any of them refuses); when {@code serial-filter} names
 * classes (an allow-list) a class none of them decided is refused, as
 * {@link ObjectInputFilter#rejectUndecidedClass} does. Immutable and thread-safe; each stream gets its own
 * {@link Stream}, which remembers the class it refused and why, so every refusal names the class and the
 * limit or pattern that refused it.
 *
 * <p>Design note: the JDK's builtin filter factory lets a stream's filter replace the JVM-wide one, so the
 * JVM-wide filter is merged here; a JVM-wide filter factory ({@code jdk.serialFilterFactory}) still gets
 * this filter as the stream's requested filter and decides as it is written to.
 */
final class SerialFilter {
  /**
   * Classes of the known Java-deserialization gadget chains (ysoserial's and the CVEs behind them), refused
   * whatever {@code serial-filter} says: none of them is a value an application caches. jcache.md says why
   * each is here.
   */
  static final String GADGETS = String.join(";",
      "!org.apache.commons.collections.functors.*", "!org.apache.commons.collections4.functors.*",
      "!org.apache.commons.beanutils.BeanComparator",
      "!org.codehaus.groovy.runtime.ConvertedClosure", "!org.codehaus.groovy.runtime.MethodClosure",
      "!com.sun.org.apache.xalan.internal.xsltc.trax.*", "!org.apache.xalan.xsltc.trax.*",
      "!org.springframework.beans.factory.ObjectFactory",
      "!org.springframework.beans.factory.support.AutowireUtils$ObjectFactoryDelegatingInvocationHandler",
      "!org.springframework.core.SerializableTypeWrapper$*", "!org.springframework.aop.framework.JdkDynamicAopProxy",
      "!com.mchange.v2.c3p0.impl.PoolBackedDataSourceBase", "!com.mchange.v2.c3p0.WrapperConnectionPoolDataSource",
      "!bsh.XThis", "!bsh.Interpreter", "!clojure.core$comp", "!clojure.main$eval_opt",
      "!com.sun.syndication.feed.impl.*", "!com.rometools.rome.feed.impl.*",
      "!org.mozilla.javascript.NativeJavaObject", "!org.mozilla.javascript.NativeError",
      "!org.apache.commons.fileupload.disk.DiskFileItem", "!org.apache.wicket.util.upload.DiskFileItem",
      "!com.vaadin.data.util.NestedMethodProperty", "!net.sf.json.JSONObject",
      "!sun.rmi.server.UnicastRef", "!sun.rmi.transport.*", "!java.rmi.server.RemoteObjectInvocationHandler",
      "!java.rmi.server.UnicastRemoteObject", "!javax.management.BadAttributeValueExpException");
  private static final ObjectInputFilter DENY = ObjectInputFilter.Config.createFilter(GADGETS);
  private static final String[] LIMITS = {"maxdepth", "maxrefs", "maxarray", "maxbytes"};
  private static final Logger LOG = LoggerFactory.getLogger(SerialFilter.class);

  private final String pattern;
  private final ObjectInputFilter filter;
  private final boolean allowList;
  private final Map<String, Long> limits;
  private final AtomicBoolean warned = new AtomicBoolean();
  /** Per class: why this filter refuses it, or "" if it does not (a class alone: no limits). */
  private final ClassValue<String> classRefusals = new ClassValue<>() {
    @Override
    protected String computeValue(Class<?> type) {
      String refusal = refusal(type, -1, 1, 1, 0);
      return refusal == null ? "" : refusal;
    }
  };

  private SerialFilter(String pattern, ObjectInputFilter filter, boolean allowList, Map<String, Long> limits) {
    this.pattern = pattern;
    this.filter = filter;
    this.allowList = allowList;
    this.limits = limits;
  }

  /** The filter of property {@code serial-filter}: a JEP 290 pattern (an error names the property and value). */
  static SerialFilter of(String pattern) {
    ObjectInputFilter f;
    try {
      f = ObjectInputFilter.Config.createFilter(pattern);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(ProviderProperties.SERIAL_FILTER + " must be a JEP 290 filter pattern"
          + " (e.g. com.example.model.*;java.base/*;!*), was " + pattern + ": " + e.getMessage(), e);
    }
    boolean names = false;
    for (String part : pattern.split(";")) {
      String p = part.trim();
      if (p.indexOf('=') < 0 && !p.isEmpty() && !p.startsWith("!")) {
        names = true;
      }
    }
    return new SerialFilter(pattern, f, names, limits(pattern));
  }

  /** The limits (maxdepth=...) of a JEP 290 pattern. */
  private static Map<String, Long> limits(String pattern) {
    Map<String, Long> limits = new HashMap<>();
    for (String part : pattern.split(";")) {
      String p = part.trim();
      int eq = p.indexOf('=');
      if (eq > 0) {
        limits.put(p.substring(0, eq).trim().toLowerCase(Locale.ROOT), Long.parseLong(p.substring(eq + 1).trim()));
      }
    }
    return Map.copyOf(limits);
  }

  /**
   * A filter given in code ({@link Codecs#serializing}): merged with the deny-list and the JVM-wide filter. Its
   * limits are known (and checked at put) if it is the JDK's pattern filter ({@code Config.createFilter}, whose
   * toString is its pattern); another filter's limits are found at the read only.
   */
  static SerialFilter of(ObjectInputFilter filter) {
    Map<String, Long> limits = Map.of();
    if (filter.getClass().getModule() == Object.class.getModule()) {
      try {
        limits = limits(String.valueOf(filter));
      } catch (RuntimeException notAPattern) {
        // a merged or other JDK filter: no limits known at put
      }
    }
    return new SerialFilter(String.valueOf(filter), filter, false, limits);
  }

  /** True if {@code serial-filter} names classes: then a class it does not name is refused. */
  boolean allowList() {
    return allowList;
  }

  /** A new filter for one stream. */
  Stream stream() {
    return new Stream();
  }

  /**
   * Checks a cache that uses Java serialization for {@code type} (its key or value type, {@code what}: the
   * property or the setting that gave it): a concrete declared type this filter refuses fails, naming the
   * class and the filter; and the first such cache of a manager without an allow-list is WARNed.
   */
  void admit(String cacheName, String what, Class<?> type) {
    if (!allowList && warned.compareAndSet(false, true)) {
      LOG.warn("cache {} uses Java serialization without an allow-list in {} (was {}): only the deny-list of known"
          + " gadget classes and the limits guard what is decoded; set {} to your model's packages, e.g."
          + " com.example.model.*;java.base/*;!*", cacheName, ProviderProperties.SERIAL_FILTER, pattern,
          ProviderProperties.SERIAL_FILTER);
    }
    if (type == Object.class || type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
      return; // what is written is some subclass: only a value can be checked (at its put)
    }
    Stream s = stream();
    if (s.checkInput(info(type, -1, 1, 1, 0)) == ObjectInputFilter.Status.REJECTED) {
      throw new IllegalArgumentException(what + " is " + type.getName() + ", which no value of cache " + cacheName
          + " could be read back as: " + s.refusal() + "; add it to " + ProviderProperties.SERIAL_FILTER);
    }
  }

  /** Why this filter refuses class {@code type} itself ("class C refused: ..."), or null; decided once per class. */
  String refusalOf(Class<?> type) {
    String refusal = classRefusals.get(type);
    return refusal.isEmpty() ? null : refusal;
  }

  /** Why this filter refuses {@code type} with these counts (as a reading stream would see them), or null. */
  String refusal(Class<?> type, long arrayLength, long depth, long refs, long bytes) {
    Stream s = stream();
    return s.checkInput(info(type, arrayLength, depth, refs, bytes)) == ObjectInputFilter.Status.REJECTED
        ? s.refusal() : null;
  }

  /** The limit {@code name} (maxdepth, maxrefs, maxarray, maxbytes) of {@code serial-filter}, or Long.MAX_VALUE. */
  long limit(String name) {
    return limits.getOrDefault(name, Long.MAX_VALUE);
  }

  @Override
  public String toString() {
    return pattern;
  }

  private static ObjectInputFilter.FilterInfo info(Class<?> type, long arrayLength, long depth, long refs, long bytes) {
    return new ObjectInputFilter.FilterInfo() {
      @Override public Class<?> serialClass() { return type; }
      @Override public long arrayLength() { return arrayLength; }
      @Override public long depth() { return depth; }
      @Override public long references() { return refs; }
      @Override public long streamBytes() { return bytes; }
    };
  }

  /** This filter on one stream: remembers the last class it saw and its first refusal. Confined to the stream. */
  final class Stream implements ObjectInputFilter {
    private String lastClass;
    private String refusedClass;
    private String refusal;

    @Override
    public Status checkInput(FilterInfo info) {
      Class<?> c = info.serialClass();
      if (c != null) {
        lastClass = c.getTypeName();
      }
      if (DENY.checkInput(info) == Status.REJECTED) {
        return refuse("it is on the provider's deny-list of known deserialization gadget classes");
      }
      Status mine = filter.checkInput(info);
      if (mine == Status.REJECTED) {
        return refuse(why(info) + " (" + ProviderProperties.SERIAL_FILTER + " " + pattern + ")");
      }
      ObjectInputFilter jvm = ObjectInputFilter.Config.getSerialFilter();
      Status global = jvm == null ? Status.UNDECIDED : jvm.checkInput(info);
      if (global == Status.REJECTED) {
        return refuse("the JVM-wide filter refuses it (jdk.serialFilter " + jvm + ")");
      }
      if (mine == Status.ALLOWED || global == Status.ALLOWED) {
        return Status.ALLOWED;
      }
      if (allowList && c != null && !primitive(c)) {
        return refuse(ProviderProperties.SERIAL_FILTER + " " + pattern + " names classes, and not this one"
            + " (a class an allow-list does not name is refused)");
      }
      return Status.UNDECIDED;
    }

    private String why(FilterInfo info) {
      Class<?> c = info.serialClass();
      if (c != null && filter.checkInput(info(c, -1, 1, 1, 0)) == Status.REJECTED) {
        return "the pattern refuses the class";
      }
      long[] found = {info.depth(), info.references(), info.arrayLength(), info.streamBytes()};
      String[] what = {"a graph depth of ", "", "an array length of ", "a stream of "};
      String[] unit = {"", " object references", "", " bytes"};
      for (int i = 0; i < LIMITS.length; i++) {
        Long max = limits.get(LIMITS[i]);
        if (max != null && found[i] > max) {
          return what[i] + found[i] + unit[i] + " is over " + LIMITS[i] + "=" + max;
        }
      }
      return "refused";
    }

    private Status refuse(String why) {
      if (refusal == null) {
        refusedClass = lastClass;
        refusal = "class " + (lastClass == null ? "(unknown)" : lastClass) + " refused: " + why;
      }
      return Status.REJECTED;
    }

    /** The class of the first refusal (or the last class read), or null. */
    String refusedClass() {
      return refusedClass != null ? refusedClass : lastClass;
    }

    /** Why this stream was refused ("class C refused: ..."), or null if it was not. */
    String refusal() {
      return refusal;
    }
  }

  private static boolean primitive(Class<?> c) {
    Class<?> t = c;
    while (t.isArray()) {
      t = t.getComponentType();
    }
    return t.isPrimitive();
  }
}
