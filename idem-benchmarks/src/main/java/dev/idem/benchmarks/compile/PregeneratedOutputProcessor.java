package dev.idem.benchmarks.compile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.FileObject;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;

/**
 * The floor of what any processor that writes idem's output pays: in its first round it writes the files idem's
 * processor wrote for the same tree beforehand (the wrappers as sources, the manifests as class-output resources,
 * each with its interface as the originating element, as idem does), read from the directory named by the
 * {@value #DIRECTORY_OPTION} option, with no reading of the interfaces, no validation and no writing of its own.
 *
 * <p>What it costs beyond the no-op processor is what the output itself costs javac: {@code Filer} checks of every
 * name, the extra round that new sources cause (javac enters every tree again, the generated ones included, in that
 * round, in the last round and in the final compile), and compiling the wrappers. The difference between idem's
 * processor and this one is idem's own work. Reading the files (about 1 MB from tmpfs) is inside the timed compile,
 * a few milliseconds that this floor pays and idem does not. Named on the command line only, never registered as a
 * service.
 */
public final class PregeneratedOutputProcessor extends AbstractProcessor {

  /** The processor option naming the directory that holds {@code generated/} (sources) and {@code classes/}. */
  static final String DIRECTORY_OPTION = "idem.bench.pregenerated";

  private boolean written;

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of("*");
  }

  @Override
  public Set<String> getSupportedOptions() {
    return Set.of(DIRECTORY_OPTION);
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    if (written) {
      return false;
    }
    written = true;
    Map<String, Element> interfaces = new HashMap<>();
    for (Element root : round.getRootElements()) {
      if (root instanceof TypeElement type) {
        interfaces.put(type.getQualifiedName().toString(), type);
      }
    }
    Path directory = Path.of(processingEnv.getOptions().get(DIRECTORY_OPTION));
    try {
      writeSources(directory.resolve("generated"), interfaces);
      writeManifests(directory.resolve("classes"), interfaces);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return false;
  }

  private void writeSources(Path generated, Map<String, Element> interfaces) throws IOException {
    try (Stream<Path> files = Files.walk(generated)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        String relative = generated.relativize(file).toString();
        String className = relative.substring(0, relative.length() - ".java".length()).replace('/', '.');
        // Foo_Idempotent wraps Foo; a nested interface's wrapper (Outer_Inner_Idempotent) falls back to no element.
        String wrapped = className.substring(0, className.lastIndexOf('_'));
        Element origin = interfaces.get(wrapped);
        JavaFileObject source = origin == null ? processingEnv.getFiler().createSourceFile(className)
            : processingEnv.getFiler().createSourceFile(className, origin);
        try (Writer writer = source.openWriter()) {
          writer.write(Files.readString(file));
        }
      }
    }
  }

  private void writeManifests(Path classes, Map<String, Element> interfaces) throws IOException {
    Path manifests = classes.resolve("META-INF").resolve("idem");
    if (!Files.isDirectory(manifests)) {
      return;
    }
    try (Stream<Path> files = Files.list(manifests)) {
      for (Path file : files.sorted().toList()) {
        String name = file.getFileName().toString();
        Element origin = interfaces.get(name.substring(0, name.length() - ".json".length()));
        FileObject resource = origin == null
            ? processingEnv.getFiler().createResource(StandardLocation.CLASS_OUTPUT, "", "META-INF/idem/" + name)
            : processingEnv.getFiler().createResource(StandardLocation.CLASS_OUTPUT, "", "META-INF/idem/" + name,
                origin);
        try (Writer writer = resource.openWriter()) {
          writer.write(Files.readString(file));
        }
      }
    }
  }
}
