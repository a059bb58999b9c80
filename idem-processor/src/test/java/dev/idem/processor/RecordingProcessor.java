package dev.idem.processor;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.Completion;
import javax.annotation.processing.Filer;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.tools.FileObject;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;

/**
 * Runs {@link IdemProcessor} behind a {@link Filer} that records every file it creates with its originating
 * elements. compile-testing hides generated files of a failed compilation, and never shows originating elements;
 * both are what Gradle's isolating mode and the "report or generate, never both" rule are about.
 */
final class RecordingProcessor implements Processor {

  /** One file the processor created. */
  record Created(String name, List<Element> originatingElements) {}

  private final Processor delegate = new IdemProcessor();
  private final List<Created> created = Collections.synchronizedList(new ArrayList<>());

  List<Created> created() {
    return List.copyOf(created);
  }

  @Override
  public void init(ProcessingEnvironment env) {
    Filer filer = new RecordingFiler(env.getFiler());
    ProcessingEnvironment wrapped = (ProcessingEnvironment) Proxy.newProxyInstance(
        ProcessingEnvironment.class.getClassLoader(), new Class<?>[] {ProcessingEnvironment.class},
        (proxy, method, args) -> {
          if (method.getName().equals("getFiler")) {
            return filer;
          }
          try {
            return method.invoke(env, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    delegate.init(wrapped);
  }

  @Override
  public Set<String> getSupportedOptions() {
    return delegate.getSupportedOptions();
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return delegate.getSupportedAnnotationTypes();
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return delegate.getSupportedSourceVersion();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    return delegate.process(annotations, round);
  }

  @Override
  public Iterable<? extends Completion> getCompletions(Element element, AnnotationMirror annotation,
                                                       ExecutableElement member, String userText) {
    return delegate.getCompletions(element, annotation, member, userText);
  }

  private final class RecordingFiler implements Filer {

    private final Filer filer;

    RecordingFiler(Filer filer) {
      this.filer = filer;
    }

    @Override
    public JavaFileObject createSourceFile(CharSequence name, Element... originatingElements) throws IOException {
      created.add(new Created(name.toString(), List.of(originatingElements)));
      return filer.createSourceFile(name, originatingElements);
    }

    @Override
    public JavaFileObject createClassFile(CharSequence name, Element... originatingElements) throws IOException {
      created.add(new Created(name + ".class", List.of(originatingElements)));
      return filer.createClassFile(name, originatingElements);
    }

    @Override
    public FileObject createResource(JavaFileManager.Location location, CharSequence moduleAndPkg,
                                     CharSequence relativeName, Element... originatingElements) throws IOException {
      created.add(new Created(moduleAndPkg + "/" + relativeName, List.of(originatingElements)));
      return filer.createResource(location, moduleAndPkg, relativeName, originatingElements);
    }

    @Override
    public FileObject getResource(JavaFileManager.Location location, CharSequence moduleAndPkg,
                                  CharSequence relativeName) throws IOException {
      return filer.getResource(location, moduleAndPkg, relativeName);
    }
  }
}
