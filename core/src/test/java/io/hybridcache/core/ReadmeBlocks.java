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
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The Java blocks of the README and of the pages in {@code src/site/} (where the README's guides and
 * reference moved), compiled and run as written. A block is its import lines, then statements; it
 * becomes the body of {@code run()} in a class that also imports {@code java.nio.file.*},
 * {@code java.nio.charset.StandardCharsets}, {@code java.time.*} and {@code java.util.*}. Used by the
 * README tests of core and of the modules whose blocks need them (published in core's test jar).
 */
public final class ReadmeBlocks {
  private ReadmeBlocks() {}

  /** A block: the page it is on, the line of its opening fence, its imports and its statements. */
  public record Block(Path page, int line, List<String> imports, String body) {
    /** True if one of its imports starts with {@code prefix}. */
    public boolean imports(String prefix) {
      return imports.stream().anyMatch(i -> i.startsWith("import " + prefix));
    }

    /** Its page's file name and its line, e.g. {@code mongo.md:12}. */
    public String where() {
      return page.getFileName() + ":" + line;
    }

    /** The name of the class it is compiled into, unique among the blocks of all pages. */
    public String className() {
      String file = page.getFileName().toString();
      return "Block_" + file.substring(0, file.lastIndexOf('.')).replaceAll("[^A-Za-z0-9]", "_") + "_line" + line;
    }
  }

  /** The repository root (the directory holding README.md), found from a module's directory. */
  public static Path root() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("README.md"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
    }
    return p;
  }

  /** The README at the repository root. */
  public static Path readme() {
    return root().resolve("README.md");
  }

  /** The pages whose Java blocks are compiled and run: the README, then {@code src/site/*.md} by name. */
  public static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(readme());
    try (Stream<Path> site = Files.list(root().resolve("src/site"))) {
      site.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  /** Every {@code ```java} block of every page of {@link #pages()}. */
  public static List<Block> allJavaBlocks() throws IOException {
    List<Block> blocks = new ArrayList<>();
    for (Path page : pages()) {
      blocks.addAll(javaBlocks(page));
    }
    return blocks;
  }

  /** Every {@code ```java} block of {@code page}. */
  public static List<Block> javaBlocks(Path page) throws IOException {
    List<String> lines = Files.readAllLines(page);
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
      blocks.add(new Block(page, open, imports, body.toString()));
    }
    return blocks;
  }

  /** The one Java block of all pages that imports from {@code prefix} (a module's own README test runs it). */
  public static Block theBlockImporting(String prefix) throws IOException {
    List<Block> blocks = allJavaBlocks().stream().filter(b -> b.imports(prefix)).toList();
    if (blocks.size() != 1) {
      throw new AssertionError("the README and src/site/ have " + blocks.size() + " Java blocks importing " + prefix
          + ", not one: " + blocks.stream().map(Block::where).toList());
    }
    return blocks.get(0);
  }

  /**
   * Compiles {@code block} (after replacing each key of {@code replace} in its body by the value) against
   * this JVM's test class path, and runs it.
   */
  public static void compileAndRun(Block block, Map<String, String> replace, Path work) throws Exception {
    String body = block.body();
    for (Map.Entry<String, String> r : replace.entrySet()) {
      body = body.replace(r.getKey(), r.getValue());
    }
    String name = block.className();
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
      throw new AssertionError(block.where() + ": the block does not compile:\n" + errors);
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
