package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import java.util.List;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;

/**
 * A clean outbox interface: every abstract method an {@link Event}. Immutable; what {@link OutboxClassWriter}
 * generates {@code <Interface>_Outbox} from.
 *
 * @param type the interface
 * @param generatedName {@code <Interface>_Outbox} in the interface's package
 * @param events its @OutboxEvent methods, in declaration order
 */
record OutboxInterface(TypeElement type, ClassName generatedName, List<Event> events) {

  OutboxInterface {
    events = List.copyOf(events);
  }

  /**
   * One @OutboxEvent method.
   *
   * @param method the method
   * @param payloadType the payload parameter's type
   * @param destination where its events go
   * @param eventType the event type
   * @param keyAccessors the accessors from the payload to the partition key; empty: no key
   * @param hasHeaders whether a second parameter carries headers
   * @param returnsId whether it returns the message id (else void)
   */
  record Event(ExecutableElement method, TypeMirror payloadType, String destination, String eventType,
               List<String> keyAccessors, boolean hasHeaders, boolean returnsId) {

    Event {
      keyAccessors = List.copyOf(keyAccessors);
    }
  }
}
