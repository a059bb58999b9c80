package com.example.shop.generated;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "shipments")
public class GeneratedShipment {
  @Id
  private Long id;

  private String status;
}
