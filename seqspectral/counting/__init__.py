"""counting"""
