package com.example.flow.model;

import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

@Entity
@Table(name = "orders")
public class Order {
  @Id
  private Long id;

  @Enumerated(EnumType.STRING)
  private OrderStatus status;

  private long amount;

  @Version
  private long version;
}
