"""linalg"""
