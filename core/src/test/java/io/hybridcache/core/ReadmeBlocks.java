package io.hybridcache.core;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The Java blocks of the README, compiled and run as written. A block is its import lines, then
 * statements; it becomes the body of {@code run()} in a class that also imports {@code java.nio.file.*},
 * {@code java.nio.charset.StandardCharsets}, {@code java.time.*} and {@code java.util.*}. Used by the
 * README tests of core and of the modules whose blocks need them (published in core's test jar).
 */
public final class ReadmeBlocks {
  private ReadmeBlocks() {}

  /** A block: the README line of its opening fence, its imports and its statements. */
  public record Block(int line, List<String> imports, String body) {
    /** True if one of its imports starts with {@code prefix}. */
    public boolean imports(String prefix) {
      return imports.stream().anyMatch(i -> i.startsWith("import " + prefix));
    }
  }

  /** The README at the repository root, found from a module's directory. */
  public static Path readme() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("README.md"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
    }
    return p.resolve("README.md");
  }

  /** Every {@code ```java} block of {@code readme}. */
  public static List<Block> javaBlocks(Path readme) throws IOException {
    List<String> lines = Files.readAllLines(readme);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).strip().equals("```java")) {
        continue;
      }
      int open = i + 1;
      List<String> imports = new ArrayList<>();
      StringBuilder body = new StringBuilder();
      for (i++; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
        String l = lines.get(i);
        if (l.startsWith("import ")) {
          imports.add(l.strip());
        } else {
          body.append(l).append('\n');
        }
      }
      blocks.add(new Block(open, imports, body.toString()));
    }
    return blocks;
  }

  /**
   * Compiles {@code block} (after replacing each key of {@code replace} in its body by the value) against
   * this JVM's test class path, and runs it.
   */
  /** The README's one Java block that imports from {@code prefix} (a module's own README test runs it). */
  public static Block theBlockImporting(String prefix) throws IOException {
    List<Block> blocks = javaBlocks(readme()).stream().filter(b -> b.imports(prefix)).toList();
    if (blocks.size() != 1) {
      throw new AssertionError("the README has " + blocks.size() + " Java blocks importing " + prefix + ", not one");
    }
    return blocks.get(0);
  }

  public static void compileAndRun(Block block, Map<String, String> replace, Path work) throws Exception {
    String body = block.body();
    for (Map.Entry<String, String> r : replace.entrySet()) {
      body = body.replace(r.getKey(), r.getValue());
    }
    String name = "ReadmeBlockAtLine" + block.line();
    String source = "package readme;\n" + String.join("\n", block.imports()) + "\n"
        + "import java.nio.file.*;\nimport java.nio.charset.StandardCharsets;\nimport java.time.*;\n"
        + "import java.util.*;\n"
        + "public class " + name + " {\n"
        + "  static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }\n"
        + "  public static void run() throws Exception {\n" + body + "  }\n}\n";
    Path src = work.resolve("src/readme/" + name + ".java");
    Path out = work.resolve("classes");
    Files.createDirectories(src.getParent());
    Files.createDirectories(out);
    Files.writeString(src, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    StringWriter errors = new StringWriter();
    boolean ok = javac.getTask(errors, null, null,
        List.of("-classpath", classPath, "-d", out.toString(), "-proc:none"), null,
        javac.getStandardFileManager(null, null, null).getJavaFileObjects(src.toFile())).call();
    if (!ok) {
      throw new AssertionError("README line " + block.line() + ": the block does not compile:\n" + errors);
    }
    List<URL> urls = new ArrayList<>();
    urls.add(out.toUri().toURL());
    for (String e : classPath.split(File.pathSeparator)) {
      urls.add(Path.of(e).toUri().toURL());
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      Method run = loader.loadClass("readme." + name).getMethod("run");
      Thread thread = Thread.currentThread();
      ClassLoader context = thread.getContextClassLoader();
      thread.setContextClassLoader(loader); // service lookups (JCache's Caching) find the block's classes
      try {
        run.invoke(null);
      } finally {
        thread.setContextClassLoader(context);
      }
    }
  }
}
